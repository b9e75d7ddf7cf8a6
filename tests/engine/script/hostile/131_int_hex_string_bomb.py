# expect: limit line 2
x = int('f' * 50000, 16)
y = pow(3, x, x)
