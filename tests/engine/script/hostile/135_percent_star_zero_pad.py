# expect: limit line 2
s = '%0*d' % (10**9, 1)
