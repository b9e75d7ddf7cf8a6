# expect: limit line 4
import numpy as np
rng = np.random.default_rng(0)
x = rng.standard_normal(10**10)
