# expect: limit line 5
a = (0,)
for i in range(100):
    a = (a, a)
s = {a}
