# expect: limit
import random
x = random.choices([1, 2], k=10**10)
