# expect: forbidden
# namedtuple API names only on the script's namedtuple classes
class A:
    pass
x = A._make
