# expect: forbidden
import functools
p = functools.partial(print)
x = p._interp
