# expect: limit
import itertools, operator
x = list(itertools.accumulate([10**100] * 1000, operator.mul))
