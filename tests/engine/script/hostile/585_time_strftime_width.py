# expect: limit
import time
x = time.strftime('%999999999Y')
