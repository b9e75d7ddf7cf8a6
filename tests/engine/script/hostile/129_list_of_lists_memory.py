# expect: limit
x = [[0] * 100000 for i in range(100000)]
