# expect: forbidden
class A:
    def __del__(self):
        pass
