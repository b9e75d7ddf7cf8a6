# expect: forbidden line 3
import numpy as np
a = np.array(['x' * 1000] * 1000, dtype=str)
