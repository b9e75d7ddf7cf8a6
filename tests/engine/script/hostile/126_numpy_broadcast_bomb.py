# expect: limit
import numpy as np
x = np.ones((10**4, 1)) * np.ones((1, 10**4))
