"""``torch.backends.cudnn``: absent, with PyTorch's default flags."""

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    return False


def version():
    return None
