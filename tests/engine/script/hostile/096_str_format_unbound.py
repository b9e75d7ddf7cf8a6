# expect: forbidden
s = str.format('{0.__class__}', 1)
