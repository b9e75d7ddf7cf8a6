# expect: limit
from collections import defaultdict
d = defaultdict(lambda: [0] * 10**9)
x = d[1]
