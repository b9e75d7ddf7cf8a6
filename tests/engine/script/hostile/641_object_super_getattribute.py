# expect: forbidden line 4
class A(object):
    def peek(self, name):
        return super().__getattribute__(name)
A().peek("__dict__")
