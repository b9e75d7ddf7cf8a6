# expect: limit
import collections
d = collections.deque([0])
for i in range(40):
    d += d
