# expect: limit line 3
n = 10**9
s = f'{1:{n}}'
