# expect: forbidden
import copy
x = copy.dispatch_table
