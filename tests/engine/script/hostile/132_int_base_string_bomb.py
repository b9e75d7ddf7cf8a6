# expect: limit line 3
s = 'z' * 90000
x = int(s, 36)
