# expect: limit line 2
s = '{:.{}f}'.format(1.5, 10**9)
