# expect: forbidden
import functools
@functools.lru_cache
def f(n):
    return n
x = f._fn
