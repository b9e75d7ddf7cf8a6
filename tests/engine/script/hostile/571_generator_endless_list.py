# expect: limit
def g():
    i = 0
    while True:
        yield i
        i += 1
x = list(g())
