# expect: limit
import collections
d = collections.deque(range(10**12), maxlen=3)
