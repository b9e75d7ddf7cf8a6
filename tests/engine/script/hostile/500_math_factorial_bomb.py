# expect: limit
import math
x = math.factorial(10**7)
