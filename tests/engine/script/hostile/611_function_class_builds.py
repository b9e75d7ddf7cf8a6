# expect: forbidden line 4
def f():
    return 1
g = f.__class__(None, None, None, None, None, None, None)
