# expect: limit line 6
a = [0]
for i in range(100):
    a = [a, a]
try:
    raise ValueError(a)
except ValueError as e:
    print(e)
