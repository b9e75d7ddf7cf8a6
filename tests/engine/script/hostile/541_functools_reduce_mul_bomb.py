# expect: limit
import functools, operator
x = functools.reduce(operator.mul, range(1, 10**5))
