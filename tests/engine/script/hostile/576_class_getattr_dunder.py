# expect: forbidden
class Spy:
    def __getattr__(self, name):
        return name
