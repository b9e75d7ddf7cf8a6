# expect: forbidden
x = eval('1 + 1')
