# expect: forbidden
import numpy as np
f = np.lib.format.open_memmap
