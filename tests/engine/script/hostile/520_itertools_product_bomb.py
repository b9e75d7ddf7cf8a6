# expect: limit
import itertools
x = list(itertools.product(range(10**6), repeat=10))
