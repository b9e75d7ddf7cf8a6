# expect: limit
import functools
x = functools.partial(pow, 10)(10**8)
