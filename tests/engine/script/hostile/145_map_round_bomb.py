# expect: limit line 2
ys = list(map(round, [1, 2], [-10**9, -10**9]))
