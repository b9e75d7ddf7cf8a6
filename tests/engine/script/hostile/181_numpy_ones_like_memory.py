# expect: limit line 6
import numpy as np
a = np.ones(900000)
keep = []
for i in range(100):
    keep.append(np.ones_like(a))
