# expect: limit
s = '%1000000000d' % 1
