# expect: limit line 5
import numpy as np
a = np.ones((100000, 1))
b = np.ones((1, 100000))
c = a.dot(b)
