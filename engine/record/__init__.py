"""Record real PyTorch autograd graphs into ``.gstep`` files (the ``gradstep[torch]`` extra).

This is the only part of gradstep that uses torch, and it imports torch only when called:
``import engine.record`` works without it.

- ``capture(output, names=..., model=...)`` -> ``engine.files.Recorded``: the graph as it stands.
- ``record_backward(output, path=None, names=..., model=...)``: runs ``backward()`` with hooks
  and records the gradient that flowed on every edge and PyTorch's execution order.
- ``session(path, model=..., optimizer=...)``: a context manager recording training iterations.
- ``ModuleWatcher(model)``: groups the nodes made inside each module (``layer1.0.conv1``).
- ``recorded_graph(file, iteration=-1)`` -> the graph model (``engine.graph.build_graph``'s
  schema, ``recorded=True``); ``replay_steps(file)`` -> the backward as ``ReplayStep`` s;
  ``graph_at_step(graph, k)`` -> the graph as it stood after ``k`` of them.
- ``write(path, recorded)``, ``graph_file(recorded)``, ``is_recorded(gf)``.
"""

from __future__ import annotations

from .arrays import Budget
from .capture import Recording, capture, record_backward
from .graph import recorded_graph
from .modules import ModuleWatcher
from .replay import ReplayNode, ReplayStep, engine_node_names, graph_at_step, replay_steps
from .session import RecordingSession, session
from .writer import METADATA_KEY, graph_file, is_recorded, write

__all__ = [
    "Budget", "METADATA_KEY", "ModuleWatcher", "Recording", "RecordingSession", "ReplayNode",
    "ReplayStep", "capture", "engine_node_names", "graph_at_step", "graph_file", "is_recorded",
    "record_backward",
    "recorded_graph", "replay_steps", "session", "write",
]
