# expect: limit
def g():
    yield from g()
next(g())
