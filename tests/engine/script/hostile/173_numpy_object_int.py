# expect: forbidden line 3
import numpy as np
a = np.array([2**100])
b = a ** a ** a
