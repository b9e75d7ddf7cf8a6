# expect: limit line 2
b = type(b'')(10**10)
