# expect: forbidden
import numpy as np
a = np.load('pwned.npy')
