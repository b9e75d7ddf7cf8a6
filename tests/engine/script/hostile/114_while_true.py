# expect: limit
while True:
    pass
