# expect: limit line 4
import numpy as np
rng = np.random.default_rng(0)
x = rng.integers(0, 10, size=np.int64(10**10))
