# expect: forbidden line 4
class A(object):
    pass
state = A().__reduce_ex__(2)
