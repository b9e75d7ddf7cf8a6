# expect: limit
import collections
d = collections.deque([0]) * 10**9
