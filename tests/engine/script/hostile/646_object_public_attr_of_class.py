# expect: forbidden line 2
order = object.mro()
