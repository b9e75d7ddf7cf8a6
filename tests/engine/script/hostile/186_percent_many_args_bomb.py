# expect: limit line 3
s = 'x' * 90000
t = '%s' * 50000 % ((s,) * 50000)
