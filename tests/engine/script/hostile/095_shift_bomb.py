# expect: limit
x = 1 << 10**10
