# expect: forbidden
class L(list):
    pass
