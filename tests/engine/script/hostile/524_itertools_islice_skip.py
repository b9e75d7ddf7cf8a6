# expect: limit
import itertools
x = next(itertools.islice(itertools.count(), 10**12, None))
