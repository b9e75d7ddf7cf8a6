# expect: forbidden line 2
hook = object.__eq__
