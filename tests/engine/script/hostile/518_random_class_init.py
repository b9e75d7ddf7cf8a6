# expect: forbidden
import random
x = random.Random.__init__
