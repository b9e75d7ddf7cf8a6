# expect: forbidden line 3
import numpy as np
a = np.array([1, 2], dtype='O')
