# expect: limit line 2
total = sum(range(10**15), 0.0)
