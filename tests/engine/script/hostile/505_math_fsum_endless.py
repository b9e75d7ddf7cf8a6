# expect: limit
import math, itertools
x = math.fsum(itertools.count())
