# expect: forbidden line 4
import numpy as np
a = np.ones(1000000)
b = a.astype('U')
