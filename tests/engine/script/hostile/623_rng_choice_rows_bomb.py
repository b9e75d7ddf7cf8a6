# expect: limit line 5
import numpy as np
rng = np.random.default_rng(0)
rows = np.zeros((1000, 1000))
x = rng.choice(rows, 10**5)
