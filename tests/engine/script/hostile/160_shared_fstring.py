# expect: limit line 5
a = {'k': [0]}
for i in range(100):
    a = {'k': [a, a]}
print(f'{a}')
