# expect: limit
x = sum(i for i in range(10**12))
