# expect: forbidden
f = lambda: 0
F = type(f)
g = F(None, "g", None, [], None, (), None)
