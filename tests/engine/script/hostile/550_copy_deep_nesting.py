# expect: limit
import copy
a = []
for i in range(20000):
    a = [a]
b = copy.deepcopy(a)
