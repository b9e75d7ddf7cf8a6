# expect: forbidden
class A:
    def __getattribute__(self, n):
        return 1
