# expect: limit
import itertools
x = itertools.tee([1], 10**9)
