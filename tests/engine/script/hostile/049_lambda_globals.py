# expect: forbidden
g = (lambda: 0).__globals__
