"""What a replay tells the panels in place of the engine's events: ``ReplayFeed``.

A file recorded from PyTorch has no engine events to listen to; its session
(``engine.record.player.RecordedSession.panels_feed``) makes one ``ReplayFeed`` per point shown,
from the recorded iterations, and ``PanelsRecorder.show_replay`` hands it to the same models the
live panels use (``buffer_rows``, ``optimizer_rows``, ``update_rule``, ``TrainingHistory``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .buffers import BufferState
from .optimizer import StepRecord
from .training import TrainingHistory


@dataclass(frozen=True)
class ReplayOptimizer:
    """A recorded optimizer: its script name, class name, param groups (hyper-parameters with
    ``params`` the parameters' display names) and the parameters' shapes."""

    name: str
    kind: str
    param_groups: tuple[dict, ...]
    shapes: dict = field(default_factory=dict)


@dataclass(frozen=True)
class ReplayFeed:
    """The panels' data at one point of a replay.

    ``stories``: display name -> how its ``.grad`` got its value; ``steps``: (optimizer name,
    parameter name) -> the latest ``optimizer.step()`` update of that parameter by then;
    ``history``: the training curves up to the point.
    """

    optimizers: tuple[ReplayOptimizer, ...] = ()
    steps: dict = field(default_factory=dict)
    stories: dict[str, BufferState] = field(default_factory=dict)
    history: TrainingHistory = field(default_factory=TrainingHistory)


__all__ = ["ReplayFeed", "ReplayOptimizer", "StepRecord"]
