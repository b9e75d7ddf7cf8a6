# expect: forbidden
import numpy as np
a = np.fromfile('/etc/passwd')
