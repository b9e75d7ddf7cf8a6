"""The allocation guard: sizes the engine checks before it allocates.

The twin knows nothing of scripts or their limits; it only asks this module before making a large
array (creation functions, the result of a broadcasting op, ``cat``/``stack``, ``mm``/``bmm``,
``repeat``, a copy of an expanded view, ``tolist()``, printing). By default no guard is installed
and each check costs one global read. The script interpreter installs a ``Budget`` from its
``Limits`` while a script runs (``install`` / ``use``), so the limits hold however the engine is
reached: from the script's operators, through ``map``, a ``key=`` function or inside nn modules.

A refusal is ``BudgetExceeded`` (a ``MemoryError``), raised before anything is allocated; the
interpreter reports it as ``ScriptError(kind="limit")`` at the script's line.
"""

from __future__ import annotations

from contextlib import contextmanager

guard = None  # the installed Budget (or None: no limits, every check is one read of this name)

# allocations below this many bytes are not worth a look at the byte budget (the interpreter
# tracks the memory of arrays of 16384 elements and more)
_SMALL_BYTES = 16384 * 4


class BudgetExceeded(MemoryError):
    """An allocation the installed budget refused (before it was made)."""


class Budget:
    """Limits on what one allocation may make.

    Parameters
    ----------
    max_elements : int, optional
        Elements of any one tensor (``Limits.max_tensor_elements``).
    room : callable, optional
        ``room(nbytes)`` raises when ``nbytes`` more would exceed the byte budget (the
        interpreter's ``MemoryMeter.check_room``).
    max_bytes : int, optional
        Bytes of any one allocation, when no ``room`` is given.
    max_list : int, optional
        Elements of a Python list ``tolist()`` builds.
    max_string : int, optional
        Characters of a tensor's printout.
    """

    __slots__ = ("max_elements", "room", "max_bytes", "max_list", "max_string")

    def __init__(self, max_elements=None, *, room=None, max_bytes=None, max_list=None,
                 max_string=None) -> None:
        self.max_elements = max_elements
        self.room = room
        self.max_bytes = max_bytes
        self.max_list = max_list
        self.max_string = max_string

    def elements(self, n: int, itemsize: int, what: str) -> None:
        cap = self.max_elements
        if cap is not None and n > cap:
            raise BudgetExceeded(f"{what} too large: {n} elements (the limit is {cap})")
        nbytes = n * itemsize
        if nbytes >= _SMALL_BYTES:
            self.bytes(nbytes, what)

    def bytes(self, nbytes: int, what: str) -> None:
        if self.room is not None:
            self.room(nbytes)
        elif self.max_bytes is not None and nbytes > self.max_bytes:
            raise BudgetExceeded(
                f"too much tensor and array memory: {nbytes >> 20} MiB (the limit is "
                f"{self.max_bytes >> 20} MiB)")

    def list_items(self, n: int) -> None:
        cap = self.max_list
        if cap is not None and n > cap:
            raise BudgetExceeded(f"tolist() of {n} elements: the list would be too long (the "
                                 f"limit is {cap})")

    def text(self, chars: int) -> None:
        cap = self.max_string
        if cap is not None and chars > cap:
            raise BudgetExceeded(f"string too long: {chars} elements (the limit is {cap})")


def check_elements(n, what: str = "tensor", itemsize: int = 4) -> None:
    """Refuse making ``n`` elements of ``itemsize`` bytes under the installed budget."""
    g = guard
    if g is not None:
        g.elements(int(n), itemsize, what)


def check_shape(shape, what: str = "tensor", itemsize: int = 4) -> None:
    """``check_elements`` of a shape's product (a plain tuple of non-negative ints)."""
    g = guard
    if g is not None:
        n = 1
        for d in shape:
            n *= int(d)
        g.elements(max(n, 0), itemsize, what)


def check_bytes(nbytes, what: str = "tensor") -> None:
    g = guard
    if g is not None:
        g.bytes(int(nbytes), what)


def check_list(n) -> None:
    """``tolist()`` of ``n`` elements (a Python object each)."""
    g = guard
    if g is not None:
        g.list_items(int(n))
        g.bytes(int(n) * 32, "list")  # a pointer and a number object per element


def check_text(chars) -> None:
    g = guard
    if g is not None:
        g.text(int(chars))


def install(budget):
    """Install ``budget`` (a ``Budget`` or None); returns the previous one, to reinstall."""
    global guard
    previous = guard
    guard = budget
    return previous


@contextmanager
def use(budget):
    """``with budget.use(Budget(...)):`` the engine's allocations are checked against it."""
    previous = install(budget)
    try:
        yield budget
    finally:
        install(previous)
