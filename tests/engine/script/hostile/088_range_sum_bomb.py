# expect: limit
x = sum(range(10**12))
