# expect: limit
import random
x = random.sample(range(10**12), 10**9)
