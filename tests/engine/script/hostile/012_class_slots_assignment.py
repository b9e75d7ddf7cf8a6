# expect: forbidden
class A:
    __slots__ = ()
