"""``torch.cuda`` on a machine without a GPU: it is never available."""


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0
