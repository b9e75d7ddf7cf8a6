# expect: forbidden
class Big:
    def __index__(self):
        return 10**12
x = [0] * Big()
