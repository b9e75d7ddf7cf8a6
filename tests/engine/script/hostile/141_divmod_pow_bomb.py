# expect: limit line 3
x = 1 << 9000
q, r = divmod(x ** 3, 7)
