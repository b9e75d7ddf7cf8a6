# expect: limit
from math import perm
x = perm(10**6, 10**5)
