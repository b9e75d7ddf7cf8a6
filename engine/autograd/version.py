"""Version counters: shared by a tensor and its views, bumped by every in-place change."""


class VersionCounter:
    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0
