# expect: limit line 7
a = [0]
b = [0]
for i in range(100):
    a = [a, a]
    b = [b, b]
n = [a, a].count(b)
