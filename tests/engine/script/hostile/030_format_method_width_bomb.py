# expect: limit
s = '{:>1000000000}'.format(1)
