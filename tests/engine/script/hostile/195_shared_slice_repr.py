# expect: limit line 8
a = [0]
for i in range(100):
    a = [a, a]
class C:
    def __getitem__(self, key):
        return key
s = str(C()[a:a])
