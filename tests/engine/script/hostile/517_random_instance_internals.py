# expect: forbidden
import random
r = random.Random(1)
x = r._limits
