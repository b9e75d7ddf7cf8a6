# expect: forbidden
import numpy as np
m = np.memmap('pwned.bin', dtype='uint8', mode='w+', shape=(4,))
