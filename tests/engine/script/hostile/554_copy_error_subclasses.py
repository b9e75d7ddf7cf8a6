# expect: forbidden
import copy
x = copy.Error.__subclasses__()
