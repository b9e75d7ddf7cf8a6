# expect: limit line 8
a = [0]
b = [0]
for i in range(100):
    a = [a, a]
    b = [b, b]
xs = [a, b]
xs.sort()
