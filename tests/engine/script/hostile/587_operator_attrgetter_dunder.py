# expect: forbidden
import operator
get = operator.attrgetter('__globals__')
