# expect: limit line 2
found = 0.5 in range(10**12)
