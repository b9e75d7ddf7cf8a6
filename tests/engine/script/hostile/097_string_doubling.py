# expect: limit
s = 'a'
while True:
    s = s + s
