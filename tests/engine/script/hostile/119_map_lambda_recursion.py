# expect: limit
f = lambda n: list(map(f, [n]))
f(0)
