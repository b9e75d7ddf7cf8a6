# expect: limit line 4
import numpy as np
a = np.ones(1000000)
b = np.concatenate([a] * 1000)
