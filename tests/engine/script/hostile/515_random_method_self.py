# expect: forbidden
import random
x = random.random.__self__
