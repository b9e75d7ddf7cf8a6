# expect: forbidden line 11
class A:
    pass


def call(self):
    return 1


a = A()
setattr(a, '__call__', call)
