# expect: limit
x = pow(10, 10**10)
