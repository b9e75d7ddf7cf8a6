# expect: limit
import math
x = math.lcm(*range(10**4, 10**4 + 3000))
