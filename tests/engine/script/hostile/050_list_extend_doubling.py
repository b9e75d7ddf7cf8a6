# expect: limit
a = [0]
while True:
    a.extend(a)
