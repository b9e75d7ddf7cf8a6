# expect: forbidden line 4
def f():
    return 1
print(hasattr(f, '__glo' + 'bals__'))  # refused, not answered False
