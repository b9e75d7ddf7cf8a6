# expect: limit
s = '%*d' % (10**9, 1)
