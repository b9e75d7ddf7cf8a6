"""``engine.autograd``: ``backward``, ``grad``, ``Variable`` and anomaly detection."""

from .anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .backward import BackwardStep, backward_steps
from .functional import backward, grad
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .node import AccumulateGrad, Node
from .variable import Variable

__all__ = [
    "AccumulateGrad", "BackwardStep", "Node", "Variable", "backward", "backward_steps",
    "detect_anomaly", "enable_grad", "grad", "inference_mode", "is_anomaly_enabled",
    "is_grad_enabled", "no_grad", "set_detect_anomaly", "set_grad_enabled",
]
