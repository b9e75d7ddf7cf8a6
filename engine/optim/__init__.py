"""``engine.optim``: PyTorch's optimizers with their exact update rules and readable state, and
``lr_scheduler`` (PyTorch's learning-rate schedulers)."""

from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamw import AdamW
from .lbfgs import LBFGS
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Adadelta", "Adagrad", "Adam", "AdamW", "LBFGS", "Optimizer", "RMSprop", "SGD",
           "lr_scheduler"]
