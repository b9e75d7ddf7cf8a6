# expect: limit
import numpy as np
x = np.zeros((10**6, 10**6))
