# expect: limit
import math
x = math.prod([2**9000] * 10)
