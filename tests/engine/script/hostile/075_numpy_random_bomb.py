# expect: limit
import numpy as np
x = np.random.randn(10**6, 10**6)
