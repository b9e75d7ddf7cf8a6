# expect: limit
import itertools
x = []
x.extend(itertools.repeat(0))
