# expect: forbidden
f = lambda x=().__class__.__base__.__subclasses__: x
