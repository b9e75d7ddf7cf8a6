"""``import copy``: ``copy`` and ``deepcopy`` (of tensors, modules and plain values, as Python
and PyTorch do); a structure nested too deeply ends with a limit error, and the process's memory
is looked at after a deep copy."""

from __future__ import annotations

import copy

from ..errors import limit
from ..underscore import remember_copies


def build(interp) -> dict:
    # the '_' names the script set on an object are its own on the copy too (underscore.py)
    def copy_(x):
        out = copy.copy(x)
        remember_copies(interp, {id(x): out})
        return out

    def deepcopy(x, memo=None):
        memo = {} if memo is None else memo
        try:
            out = copy.deepcopy(x, memo)
        except RecursionError:
            raise limit("copy.deepcopy: the structure is nested too deeply") from None
        remember_copies(interp, memo)
        interp._memory.check_process(interp._current_stmt())
        return out

    copy_.__name__ = "copy"
    return {"copy": copy_, "deepcopy": deepcopy, "Error": copy.Error}
