# expect: forbidden
import random
# the process's generator
x = random._inst.random()
