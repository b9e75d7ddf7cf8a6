# expect: limit line 3
s = 'x' * 90000
print(*[s] * 90000)
