# expect: limit
import random
x = random.randbytes(10**9)
