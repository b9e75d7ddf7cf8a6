# expect: limit line 4
import numpy as np
rng = np.random.default_rng(0)
x = rng.normal(0.0, 1.0, size=(10**5, 10**5))
