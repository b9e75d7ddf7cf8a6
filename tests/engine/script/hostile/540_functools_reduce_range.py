# expect: limit
import functools, operator
x = functools.reduce(operator.add, range(10**12))
