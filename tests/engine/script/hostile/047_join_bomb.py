# expect: limit
x = ','.join(['a' * 10**5] * 10**5)
