"""``import copy``: ``copy`` and ``deepcopy`` (of tensors, modules and plain values, as Python
and PyTorch do); a structure nested too deeply ends with a limit error, and the process's memory
is looked at after a deep copy."""

from __future__ import annotations

import copy

from ..errors import limit


def build(interp) -> dict:
    def copy_(x):
        return copy.copy(x)

    def deepcopy(x, memo=None):
        try:
            out = copy.deepcopy(x, memo)
        except RecursionError:
            raise limit("copy.deepcopy: the structure is nested too deeply") from None
        interp._memory.check_process(interp._current_stmt())
        return out

    copy_.__name__ = "copy"
    return {"copy": copy_, "deepcopy": deepcopy, "Error": copy.Error}
