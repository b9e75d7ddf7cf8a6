# expect: limit
x = 5 in iter(int, 1)
