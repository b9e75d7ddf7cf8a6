# expect: forbidden line 7
def add_to_class(Class):
    return lambda fn: setattr(Class, fn.__name__, fn)


@add_to_class(object)
def __getattribute__(self, name):
    return name
