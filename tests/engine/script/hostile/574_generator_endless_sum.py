# expect: limit
def g():
    while True:
        yield 1
x = sum(g())
