# expect: limit
class It:
    def __iter__(self):
        return self
    def __next__(self):
        return 1
x = list(It())
