"""``engine.autograd``: ``backward``, ``grad``, ``Variable``, ``Function``, the functional API
(``engine.autograd.functional``: jacobian, hessian, vjp, jvp, hvp, vhp), ``gradcheck`` and
anomaly detection."""

from . import function, functional
from .anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .backward import BackwardStep, backward_steps
from .function import Function
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import gradcheck, gradgradcheck
from .gradient import backward, grad
from .node import AccumulateGrad, Node
from .variable import Variable

__all__ = [
    "AccumulateGrad", "BackwardStep", "Function", "Node", "Variable", "backward",
    "backward_steps", "detect_anomaly", "enable_grad", "function", "functional", "grad",
    "gradcheck", "gradgradcheck",
    "inference_mode", "is_anomaly_enabled", "is_grad_enabled", "no_grad", "set_detect_anomaly",
    "set_grad_enabled",
]
