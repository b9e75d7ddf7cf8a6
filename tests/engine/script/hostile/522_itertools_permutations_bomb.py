# expect: limit
import itertools
for p in itertools.permutations(range(100)):
    pass
