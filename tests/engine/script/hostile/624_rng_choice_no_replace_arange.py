# expect: limit line 5
import numpy as np
rng = np.random.default_rng(0)
# within the element limit, but numpy would shuffle arange(4 * 10**7) (320 MB) for it
x = rng.choice(4 * 10**7, 900000, replace=False)
