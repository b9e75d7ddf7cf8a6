# expect: limit line 6
from pprint import pformat
a = [0]
for i in range(40):
    a = [a, a]
text = pformat(a, indent=1)
