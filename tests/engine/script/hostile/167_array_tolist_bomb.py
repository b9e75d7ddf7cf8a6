# expect: limit line 3
import numpy as np
xs = np.zeros((1000, 1000)).tolist()
