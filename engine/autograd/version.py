"""Version counters: shared by a tensor and its views, bumped by every in-place change."""


class VersionCounter:
    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0

    # ``tensor._version`` reads as PyTorch's int in user code: it prints, compares and converts
    # as its current value (it stays a live counter, not a snapshot).
    def __repr__(self) -> str:
        return repr(self.value)

    def __int__(self) -> int:
        return self.value

    __index__ = __int__

    def __eq__(self, other) -> bool:
        return self.value == (other.value if isinstance(other, VersionCounter) else other)

    def __hash__(self) -> int:
        return id(self)
