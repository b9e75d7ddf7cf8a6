# expect: limit line 5
import numpy as np
rng = np.random.default_rng(0)
row = [0.0] * 10000
x = rng.normal([row] * 10000)
