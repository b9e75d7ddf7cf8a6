# expect: forbidden line 7
import torch.nn as nn


def add_to_class(Class):
    def wrapper(obj):
        setattr(Class, obj.__name__, obj)
    return wrapper


@add_to_class(nn.Module)
def __call__(self, *args):
    return None
