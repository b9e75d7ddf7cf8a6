# expect: limit
import itertools
x = ''.join(itertools.cycle('ab'))
