"""The debugger session: stepping, breakpoints, time travel, diffs, explanations and lint.

``Session`` is what the window drives (from a worker thread) and the headless CLI runs; views
subscribe to its ``SessionEvent``s. Nothing here imports Qt.
"""

from .breakpoints import ConditionError, DataBreakpoints, LineBreakpoint, evaluate_condition
from .counters import Counters
from .diff import OptimizerChange, StateDiff, TensorChange
from .events import Position, SessionEvent
from .explain import Explanation, explain
from .lint import LintWarning, find_path_cuts
from .session import FAILED, FINISHED, IDLE, PAUSED, STOPPED, Session
from .state import Snapshot, TensorRecord
from .timeline import Timeline, TimelinePoint
from .trace import TraceRecorder

__all__ = [
    "ConditionError", "Counters", "DataBreakpoints", "Explanation", "FAILED", "FINISHED", "IDLE",
    "LineBreakpoint", "LintWarning", "OptimizerChange", "PAUSED", "Position", "STOPPED",
    "Session", "SessionEvent", "Snapshot", "StateDiff", "TensorChange", "TensorRecord",
    "Timeline", "TimelinePoint", "TraceRecorder", "evaluate_condition", "explain",
    "find_path_cuts",
]
