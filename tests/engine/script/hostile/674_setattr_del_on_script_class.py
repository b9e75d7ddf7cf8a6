# expect: forbidden line 10
class A:
    pass


def finalizer(self):
    print('collected')


setattr(A, '__del__', finalizer)
