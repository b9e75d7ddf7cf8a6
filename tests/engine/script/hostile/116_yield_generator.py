# expect: limit
# a generator that never ends, consumed by a for loop: ended by the statement limit
def g():
    while True:
        yield 1


for _ in g():
    pass
