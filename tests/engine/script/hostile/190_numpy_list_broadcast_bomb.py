# expect: limit line 5
import numpy as np
a = np.ones((50000, 1))
row = [[1.0] * 50000]
c = a + row
