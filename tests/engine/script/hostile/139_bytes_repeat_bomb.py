# expect: limit line 3
b = b'ab'
c = b * 10**10
