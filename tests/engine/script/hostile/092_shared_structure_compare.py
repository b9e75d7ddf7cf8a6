# expect: limit
a = []
b = []
for i in range(100):
    a = [a, a]
    b = [b, b]
same = a == b
