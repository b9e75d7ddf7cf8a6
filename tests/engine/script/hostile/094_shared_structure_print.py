# expect: limit
a = []
for i in range(100):
    a = [a, a]
print(a)
