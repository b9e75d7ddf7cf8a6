# expect: forbidden
f = lambda x=().__class__: x
