# expect: limit line 2
xs = list(map(pow, [2, 3], [10**9, 10**9]))
