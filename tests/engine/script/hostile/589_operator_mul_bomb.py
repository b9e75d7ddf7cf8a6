# expect: limit
import operator
x = operator.mul([0], 10**9)
