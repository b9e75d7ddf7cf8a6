"""What a graph file holds, as plain dataclasses (the JSON layout is in docs/gstep-format.md).

Everything here is data: nothing in a GraphFile is ever executed except ``script``, and only by
the safe interpreter when the user runs it. Defaults are what a file that omits a field means.
Equality compares arrays bit for bit (see ``codec.identical``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from ..script.limits import Limits
from .codec import identical

FORMAT_NAME = "gradstep"
FORMAT_VERSION = 2
"""The newest version this reader knows. Version 2 writes a recorded graph column-wise
(``engine.files.columns``); a file without one is written as version 1, the oldest that holds it,
so that older gradsteps still open lessons saved by this one."""
PLAIN_VERSION = 1

# The fields of engine.script.Limits a file may set (settings.limits).
LIMIT_NAMES = tuple(f.name for f in dataclasses.fields(Limits))


class _ExactEquality:
    """Dataclass equality that compares numpy arrays bit for bit instead of elementwise."""

    __slots__ = ()  # so that the slotted record classes below have no __dict__

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return identical(self, other)

    __hash__ = None


@dataclass(eq=False)
class Breakpoint(_ExactEquality):
    """A line breakpoint; ``condition`` is an expression in the script's language, or None."""

    line: int
    condition: str | None = None
    enabled: bool = True


@dataclass(eq=False)
class DataBreakpoints(_ExactEquality):
    """Pause on a NaN/Inf anywhere, on a gradient norm above ``grad_norm``, or at each call."""

    nan: bool = False
    grad_norm: float | None = None
    on_backward: bool = False
    on_zero_grad: bool = False
    on_step: bool = False


@dataclass(eq=False)
class Settings(_ExactEquality):
    """Session settings: the random seed and the interpreter's limits (names in LIMIT_NAMES)."""

    seed: int = 0
    limits: dict[str, int] = field(default_factory=dict)


@dataclass(eq=False)
class ViewState(_ExactEquality):
    """Where the graph view was: node positions by node id, folded groups, zoom and center."""

    positions: dict[str, tuple[float, float]] = field(default_factory=dict)
    folded: list[str] = field(default_factory=list)
    zoom: float = 1.0
    center: tuple[float, float] | None = None


@dataclass(eq=False)
class SavedTensor(_ExactEquality):
    """A named tensor's value and gradient buffer at the saved point."""

    value: np.ndarray
    grad: np.ndarray | None = None
    requires_grad: bool = False


@dataclass(eq=False)
class SavedOptimizer(_ExactEquality):
    """An optimizer's state, keyed by the names of the tensors it updates.

    ``param_groups`` are dicts of hyperparameters with ``params`` a list of tensor names;
    ``state`` maps a tensor name to PyTorch's per-parameter keys (``momentum_buffer``,
    ``exp_avg``, ``exp_avg_sq``, ``step``, ...), each an array or a number.
    """

    type: str
    param_groups: list[dict] = field(default_factory=list)
    state: dict[str, dict] = field(default_factory=dict)


@dataclass(eq=False)
class SavedState(_ExactEquality):
    """A point to resume from: the iteration reached, named tensors, optimizers by name."""

    iteration: int = 0
    tensors: dict[str, SavedTensor] = field(default_factory=dict)
    optimizers: dict[str, SavedOptimizer] = field(default_factory=dict)


# slots: a recording has 100,000 nodes and edges; without, each is two objects for the garbage
# collector to walk (it and its __dict__) and every full collection took a second longer
@dataclass(eq=False, slots=True)
class RecordedNode(_ExactEquality):
    """A node of a graph recorded from real PyTorch.

    ``kind`` is ``tensor``, ``function`` or ``accumulate`` (as in the graph model); ``attrs``
    holds anything else the recorder knows (``node_name``, ``shape``, ``group``, ...);
    ``value``/``grad`` are arrays for tensor nodes.
    """

    id: str
    kind: str
    label: str = ""
    attrs: dict = field(default_factory=dict)
    value: np.ndarray | None = None
    grad: np.ndarray | None = None


@dataclass(eq=False, slots=True)
class RecordedEdge(_ExactEquality):
    """A forward-direction edge (input -> op -> output) and the gradient that flowed back on it."""

    source: str
    target: str
    grad: np.ndarray | None = None


@dataclass(eq=False)
class Recorded(_ExactEquality):
    """A graph recorded from real PyTorch: nodes, edges and the ids of its leaf tensors.

    ``iterations`` holds what a recording session saw at the end of each training iteration
    (named tensors with their grads, ``loss``, optimizer state), oldest first.
    """

    nodes: list[RecordedNode] = field(default_factory=list)
    edges: list[RecordedEdge] = field(default_factory=list)
    leaves: list[str] = field(default_factory=list)
    iterations: list[SavedState] = field(default_factory=list)


@dataclass(eq=False)
class GraphFile(_ExactEquality):
    """The contents of a ``.gstep`` file.

    Attributes
    ----------
    script : str
        The PyTorch-style source the session runs.
    title, description : str
        Shown in the gallery and the window title.
    breakpoints : list of Breakpoint
        Line breakpoints, at most one per line.
    data_breakpoints : DataBreakpoints
    settings : Settings
    view : ViewState
    notes : dict of int to str
        Teaching notes by script line (1-based).
    state : SavedState or None
        A saved point the session can resume from.
    recorded : Recorded or None
        A graph recorded from real PyTorch.
    metadata : dict
        Free-form JSON for tools (e.g. ``expect_error`` in the examples); never interpreted.
    version : int
        The format version the file was read from (writing picks the version, see
        ``FORMAT_VERSION``).
    """

    script: str = ""
    title: str = ""
    description: str = ""
    breakpoints: list[Breakpoint] = field(default_factory=list)
    data_breakpoints: DataBreakpoints = field(default_factory=DataBreakpoints)
    settings: Settings = field(default_factory=Settings)
    view: ViewState = field(default_factory=ViewState)
    notes: dict[int, str] = field(default_factory=dict)
    state: SavedState | None = None
    recorded: Recorded | None = None
    metadata: dict = field(default_factory=dict)
    # where the file came from, not what it holds: equal files may differ in it
    version: int = field(default=FORMAT_VERSION, compare=False)
