# expect: forbidden line 2
d = print.__doc__
