# expect: limit
import math
x = math.comb(10**9, 5 * 10**8)
