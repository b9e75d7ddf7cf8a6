# expect: limit
x = str(10**5000)
