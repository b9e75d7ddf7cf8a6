# expect: limit line 2
y = round(1, -10**9)
