# expect: limit line 4
import numpy as np
a = np.ones((100000, 1))
b = np.add(a, np.ones(100000))
