# expect: limit line 6
a = (0,)
for i in range(100):
    a = (a, a)
s = set()
s.add((0, a))
