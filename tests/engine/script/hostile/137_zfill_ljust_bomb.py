# expect: limit line 3
a = 'x'.ljust(50000)
b = a.zfill(10**9)
