# expect: forbidden
# os.urandom behind it
from random import SystemRandom
