# expect: forbidden line 5
class A:
    pass

setattr(A, '__repr__', print)
