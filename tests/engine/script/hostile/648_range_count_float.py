# expect: limit line 3
r = range(10**12)
n = r.count(1.5)
