# expect: limit line 5
import numpy as np
keep = []
for i in range(100):
    keep.append(np.ones(900000))
