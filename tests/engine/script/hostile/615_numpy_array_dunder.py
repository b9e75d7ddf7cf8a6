# expect: forbidden line 4
import numpy as np
a = np.zeros(3)
m = a.__mul__
