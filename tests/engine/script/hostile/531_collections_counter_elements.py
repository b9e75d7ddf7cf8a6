# expect: limit
import collections
c = collections.Counter({'a': 10**12})
x = []
x.extend(c.elements())
