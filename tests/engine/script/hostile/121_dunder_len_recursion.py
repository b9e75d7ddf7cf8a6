# expect: limit
class A:
    def __len__(self):
        return len(self)
n = len(A())
