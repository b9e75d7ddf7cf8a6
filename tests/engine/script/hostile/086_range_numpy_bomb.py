# expect: limit
import numpy as np
x = np.array(range(10**12))
