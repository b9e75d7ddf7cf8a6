# expect: limit line 6
import warnings
a = [0]
for i in range(40):
    a = [a, a]
warnings.warn(a)  # the message is measured before it is turned into text
