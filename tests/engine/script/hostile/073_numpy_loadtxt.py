# expect: forbidden
from numpy import loadtxt
a = loadtxt('/etc/passwd')
