# expect: forbidden
v = vars()
