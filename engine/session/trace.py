"""A JSON trace of a session's events (``gradstep export FILE --trace OUT``).

Each ``SessionEvent`` becomes a plain dict: no arrays, no live objects, only what a reader needs to
replay the story of the run (where it paused and why, what changed by how much, which backward
nodes ran, console lines, warnings, the error and its explanation).
"""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

from .events import Error, SessionEvent

FORMAT_VERSION = 1


def _number(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return x


def _plain(obj: Any) -> Any:
    """Dataclasses, tuples and frozensets as JSON-able values (non-finite floats as strings)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: _plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, (list, tuple)):
        return [_plain(x) for x in obj]
    if isinstance(obj, (set, frozenset)):
        return sorted(_plain(x) for x in obj)
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (str, int, bool)) or obj is None:
        return obj
    if isinstance(obj, float):
        return _number(obj)
    return repr(obj)


def _diff(diff) -> dict | None:
    if diff is None:
        return None
    return {
        "tensors": _plain(diff.tensors),
        "nodes_executed": list(diff.nodes_executed),
        "optimizer": _plain(diff.optimizer),
        "console": list(diff.console),
        "full": diff.full,
    }


def event_to_dict(event: SessionEvent) -> dict:
    """One event as a JSON-able dict with its ``kind`` first."""
    out: dict = {"kind": event.kind}
    f = {field.name: getattr(event, field.name) for field in dataclasses.fields(event)}
    for key in ("command", "reason", "text", "line", "length", "stopped", "travelled"):
        if key in f:
            out[key] = _plain(f[key])
    if "point" in f:
        out["point"] = _plain(f["point"])
    if "position" in f:
        out["position"] = _plain(f["position"])
    if "diff" in f:
        out["diff"] = _diff(f["diff"])
    if "warning" in f:
        out["warning"] = _plain(f["warning"])
    if isinstance(event, Error):
        if event.error is not None:
            e = event.error
            out["error"] = {"kind": e.kind, "line": e.line, "col": e.col, "message": e.message}
            cause = e.__cause__
            if cause is not None:
                out["error"]["cause"] = f"{type(cause).__name__}: {cause}"
        if event.explanation is not None:
            out["explanation"] = _plain(event.explanation)
    return out


class TraceRecorder:
    """Subscribe to a session and keep every event as a dict.

    Examples
    --------
    >>> recorder = TraceRecorder()
    >>> unsubscribe = session.subscribe(recorder)  # doctest: +SKIP
    """

    def __init__(self) -> None:
        self.events: list[dict] = []

    def __call__(self, event: SessionEvent) -> None:
        self.events.append(event_to_dict(event))

    def to_json(self, **meta: Any) -> str:
        doc = {"format": "gradstep-trace", "version": FORMAT_VERSION, **meta,
               "events": self.events}
        return json.dumps(doc, indent=1, allow_nan=False)
