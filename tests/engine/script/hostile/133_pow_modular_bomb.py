# expect: limit line 4
x = int('f' * 2400, 16)
m = int('7' * 2400, 8)
y = pow(3, x * 1, m)
