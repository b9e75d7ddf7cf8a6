# expect: forbidden line 4
class A(object):
    pass
for c in object.__subclasses__():
    print(c)
