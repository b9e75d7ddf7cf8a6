# expect: limit line 2
ys = list(map(int, ['f' * 50000], [16]))
