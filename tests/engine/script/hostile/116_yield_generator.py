# expect: forbidden
def g():
    yield 1
