# expect: forbidden
from os import system
system('touch pwned')
