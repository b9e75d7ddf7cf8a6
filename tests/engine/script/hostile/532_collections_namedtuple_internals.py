# expect: forbidden
from collections import namedtuple
P = namedtuple('P', 'x y')
x = P.__new__.__globals__
