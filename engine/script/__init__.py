"""The safe interpreter of PyTorch-style scripts (``engine.script.run``).

Scripts are parsed with ``ast`` and walked node by node, never compiled or executed as Python;
``torch`` imports resolve to the engine. See ``Interpreter`` for stepping and ``Limits`` for the
resource limits.
"""

from .errors import ScriptError
from .interpreter import Interpreter, run
from .limits import Limits
from .pause import Frame, Pause

__all__ = ["Frame", "Interpreter", "Limits", "Pause", "ScriptError", "run"]
