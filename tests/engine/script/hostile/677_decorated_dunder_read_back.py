# expect: forbidden line 13
class A:
    pass


def keep(fn):
    return fn


@keep
def __init__(self):
    self.x = 1
init = __init__
