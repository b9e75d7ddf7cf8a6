"""Threads and determinism, as a CPU build of PyTorch answers: ``torch.set_num_threads`` and
its kin. The engine computes on one thread; these keep what a script set, so that it reads its
own settings back as in PyTorch. The intra-op default is PyTorch's (the physical cores, or
OMP_NUM_THREADS/MKL_NUM_THREADS when lower: ``reduce_order.intraop_threads``, which also orders the
engine's big sums as PyTorch's threads do); the inter-op default is the same count, as PyTorch's
pool sizes itself. The interpreter puts them back when a run ends (script/interpreter.py)."""

from __future__ import annotations

SETTINGS = {"intra": None, "interop": None, "interop_set": False}
DETERMINISTIC = {"mode": False, "warn_only": False}


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def get_num_threads() -> int:
    """``torch.get_num_threads()``: the intra-op thread count (set, or PyTorch's default)."""
    from .ops.reduce_order import intraop_threads

    return intraop_threads()


def set_num_threads(nthreads) -> None:
    """``torch.set_num_threads(n)``: recorded and read back (the engine runs on one thread)."""
    if not _is_int(nthreads):
        raise RuntimeError(f"set_num_threads expects an int, but got {type(nthreads).__name__}")
    if nthreads <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    SETTINGS["intra"] = nthreads


def get_num_interop_threads() -> int:
    """``torch.get_num_interop_threads()``: the inter-op pool size (set, or the core count)."""
    from .ops.reduce_order import intraop_threads

    return SETTINGS["interop"] or intraop_threads()


def set_num_interop_threads(nthreads) -> None:
    """``torch.set_num_interop_threads(n)``: allowed once, as in PyTorch (its pool starts then)."""
    if not _is_int(nthreads):
        raise RuntimeError(
            f"set_num_interop_threads expects an int, but got {type(nthreads).__name__}")
    if nthreads <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if SETTINGS["interop_set"]:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has "
                           "started or set_num_interop_threads called")
    SETTINGS["interop"], SETTINGS["interop_set"] = nthreads, True


def use_deterministic_algorithms(mode, *, warn_only: bool = False) -> None:
    """``torch.use_deterministic_algorithms``: recorded (every engine kernel is deterministic)."""
    if not isinstance(mode, bool):
        raise TypeError("_set_deterministic_algorithms(): argument 'mode' (position 1) must be "
                        f"bool, not {type(mode).__name__}")
    if not isinstance(warn_only, bool):
        raise TypeError("_set_deterministic_algorithms(): argument 'warn_only' must be bool, not "
                        f"{type(warn_only).__name__}")
    DETERMINISTIC["mode"], DETERMINISTIC["warn_only"] = mode, warn_only


def are_deterministic_algorithms_enabled() -> bool:
    return DETERMINISTIC["mode"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return DETERMINISTIC["warn_only"]
