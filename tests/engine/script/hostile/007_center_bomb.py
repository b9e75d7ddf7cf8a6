# expect: limit
s = 'a'.center(10**10)
