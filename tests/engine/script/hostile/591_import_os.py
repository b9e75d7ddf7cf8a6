# expect: forbidden
import os
os.system('echo hi')
