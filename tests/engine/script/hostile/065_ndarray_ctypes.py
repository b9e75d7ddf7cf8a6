# expect: forbidden
import numpy as np
p = np.zeros(3).ctypes.data
