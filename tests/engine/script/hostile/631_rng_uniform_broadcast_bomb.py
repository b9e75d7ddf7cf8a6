# expect: limit line 5
import numpy as np
rng = np.random.default_rng(0)
a = np.zeros((3000, 1))
x = rng.uniform(a, np.zeros(3000))
