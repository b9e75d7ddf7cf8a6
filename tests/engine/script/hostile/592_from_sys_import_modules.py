# expect: forbidden
from sys import modules
