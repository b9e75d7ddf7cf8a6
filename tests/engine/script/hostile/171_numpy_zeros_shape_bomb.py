# expect: limit line 3
import numpy as np
a = np.zeros((10**6, 10**6))
