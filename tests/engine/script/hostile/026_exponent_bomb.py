# expect: limit
x = 10**10**10
