# expect: limit
x = list(iter(int, 1))
