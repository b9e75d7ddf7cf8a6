# expect: limit line 5
a = [0]
for i in range(100):
    a = [a, a]
ys = sorted([a, [1]], key=str)
