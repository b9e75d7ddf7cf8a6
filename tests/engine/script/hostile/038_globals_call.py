# expect: forbidden
g = globals()['__builtins__']
