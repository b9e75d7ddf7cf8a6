# expect: limit
class D:
    def __hash__(self):
        return hash(self)
s = {D()}
