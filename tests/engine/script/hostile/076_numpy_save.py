# expect: forbidden
import numpy as np
np.save('pwned.npy', np.zeros(3))
