# expect: forbidden
import numpy as np
np.ones(2).dump('pwned.pkl')
