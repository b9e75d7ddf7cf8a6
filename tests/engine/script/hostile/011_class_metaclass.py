# expect: forbidden
class A(metaclass=list):
    pass
