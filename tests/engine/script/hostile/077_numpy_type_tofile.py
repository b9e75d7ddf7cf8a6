# expect: forbidden
import numpy as np
np.float32.tofile(np.float32(1), 'pwned.bin')
