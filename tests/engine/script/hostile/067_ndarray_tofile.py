# expect: forbidden
import numpy as np
a = np.zeros(3)
a.tofile('pwned.bin')
