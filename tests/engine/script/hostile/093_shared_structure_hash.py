# expect: limit
t = ()
for i in range(100):
    t = (t, t)
s = {t}
