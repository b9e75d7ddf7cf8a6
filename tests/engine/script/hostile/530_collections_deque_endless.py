# expect: limit
import collections, itertools
d = collections.deque(itertools.count(), maxlen=1)
