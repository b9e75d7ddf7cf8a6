# expect: limit
import itertools
x = list(itertools.count())
