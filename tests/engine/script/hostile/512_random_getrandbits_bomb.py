# expect: limit
import random
x = random.getrandbits(10**9)
