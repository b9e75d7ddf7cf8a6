# expect: forbidden line 3
import numpy as np
a = np.zeros(3, dtype='object')
