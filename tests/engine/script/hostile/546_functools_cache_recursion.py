# expect: limit
import functools
@functools.cache
def f(n):
    return f(n + 1)
f(0)
