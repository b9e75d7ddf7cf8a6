# expect: runtime
def g():
    yield 1
f = g().gi_frame
