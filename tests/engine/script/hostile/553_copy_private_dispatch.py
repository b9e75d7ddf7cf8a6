# expect: forbidden
import copy
x = copy._deepcopy_dispatch
