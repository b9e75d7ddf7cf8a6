"""PyTorch's ``TORCH_WARN_ONCE``: a warning its C++ gives the first time only in a process's
life (``float()`` of a tensor that requires grad). A script run in the debugger stands for one
process, so the interpreter forgets what was warned when a run ends
(``engine.script.interpreter._global_switches``)."""

from __future__ import annotations

import warnings

WARNED: set[str] = set()


def warn_once(key: str, message: str, category=UserWarning, stacklevel: int = 3) -> None:
    if key in WARNED:
        return
    WARNED.add(key)
    warnings.warn(message, category, stacklevel=stacklevel)
