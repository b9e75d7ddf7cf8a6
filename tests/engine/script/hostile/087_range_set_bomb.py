# expect: limit
x = set(range(10**12))
