"""The debugger session: stepping, breakpoints, time travel, diffs, explanations and lint.

``Session`` is what the window drives (from a worker thread) and the headless CLI runs; it and the
recording player implement ``DebugSession``; views subscribe to their typed events
(``engine.session.events``: ``Paused``, ``Finished``, ...). Nothing here imports Qt.

Names load on first use: the window imports ``engine.session.events`` (its event types and
``Status``) at start, and must not pay for the interpreter and the session machinery before its
first paint.
"""

from importlib import import_module

_WHERE = {
    "ConditionError": "breakpoints", "DataBreakpoints": "breakpoints",
    "LineBreakpoint": "breakpoints",
    "Counters": "counters",
    "OptimizerChange": "diff", "StateDiff": "diff", "TensorChange": "diff",
    "Position": "events", "SessionEvent": "events", "Status": "events",
    "Explanation": "explain", "explain": "explain",
    "LintWarning": "lint", "find_path_cuts": "lint",
    "DebugSession": "protocol",
    "Session": "session",
    "Snapshot": "state", "TensorRecord": "state",
    "Timeline": "timeline", "TimelinePoint": "timeline",
    "TraceRecorder": "trace",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str):
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'engine.session' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
