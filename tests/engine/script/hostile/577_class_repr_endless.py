# expect: limit
class D:
    def __repr__(self):
        while True:
            pass
print(D())
