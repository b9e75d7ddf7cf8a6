# expect: limit line 4
import numpy as np
rng = np.random.default_rng(0)
x = rng.permutation(10**10)
