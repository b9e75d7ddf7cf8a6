# expect: forbidden
import functools
def f():
    pass
@functools.wraps(f)
def g():
    pass
x = g.__wrapped__
