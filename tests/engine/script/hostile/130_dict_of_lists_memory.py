# expect: limit
d = {}
i = 0
while True:
    d[i] = [i] * 50000
    i += 1
