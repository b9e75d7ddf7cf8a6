# expect: limit line 2
xs = list(range(0, 10**18, 3))
