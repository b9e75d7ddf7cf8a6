# expect: forbidden
import operator
call = operator.methodcaller('__reduce_ex__', 2)
