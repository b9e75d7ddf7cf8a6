# expect: forbidden line 3
import numpy as np
a = np.ones(3).astype('O')
