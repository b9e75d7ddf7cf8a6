"""Anomaly detection: ``detect_anomaly`` / ``set_detect_anomaly``.

With it on, the backward pass raises PyTorch's "Function 'XBackward0' returned nan values in its
0th output." and, going further than PyTorch, the forward pass remembers (and warns about) the first
op whose output became NaN or Inf from finite inputs.
"""

from __future__ import annotations

from .grad_mode import state

first_forward = None  # (op name, node name) of the first op that produced a non-finite value


def is_anomaly_enabled() -> bool:
    return state.anomaly


class set_detect_anomaly:
    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        global first_forward
        self._prev = state.anomaly
        state.anomaly = bool(mode)
        first_forward = None

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> bool:
        state.anomaly = self._prev
        return False


class detect_anomaly(set_detect_anomaly):
    def __init__(self, check_nan: bool = True) -> None:
        self._check_nan = check_nan
        self._prev = state.anomaly

    def __enter__(self):
        global first_forward
        self._prev = state.anomaly
        state.anomaly = True
        first_forward = None
        return self
