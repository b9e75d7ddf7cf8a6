# expect: limit line 2
s = format(1.5, '.1000000000f') if False else f'{1.5:.{10**9}f}'
