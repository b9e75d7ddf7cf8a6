# expect: runtime
import copy
# a module is not copied (its proxy refuses, as Python's modules do)
x = copy.deepcopy(copy)
