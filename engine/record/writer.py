"""Recorded graphs and training iterations into ``.gstep`` files (through ``engine.files``).

A recorded file has the usual layout: its ``recorded`` part holds the graph (and the iterations a
session saw), ``state`` the last iteration (so the gradient buffers and optimizer panels show it),
and ``metadata["gradstep.record"]`` a small summary: torch's version, the losses and gradient
norms of every iteration, and how many arrays were too large to keep.
"""

from __future__ import annotations

import math

import numpy as np

from ..files import (
    DEFAULT_LIMITS,
    GraphFile,
    Recorded,
    SavedOptimizer,
    SavedState,
    SavedTensor,
    dumps,
    write_atomic,
)
from .arrays import Budget, to_numpy

METADATA_KEY = "gradstep.record"
RECORDED_SCRIPT = (
    "# Recorded from real PyTorch by engine.record: this file holds a graph, not a script.\n"
    "# Open it to inspect the graph and step through the recorded backward pass.\n"
)


def graph_file(recorded: Recorded, *, state: SavedState | None = None, title: str = "",
               description: str = "", summary: dict | None = None) -> GraphFile:
    """A GraphFile holding ``recorded`` (and ``state``), marked as recorded in its metadata."""
    meta = {"torch_version": _torch_version(), **(summary or {})}
    return GraphFile(script=RECORDED_SCRIPT, title=title or "Recorded PyTorch graph",
                     description=description, state=state, recorded=recorded,
                     metadata={METADATA_KEY: meta})


def write(path, recorded: Recorded, **kw) -> GraphFile:
    """Save ``recorded`` to ``path`` atomically; keywords as :func:`graph_file`. Returns the file.

    Raises
    ------
    ValueError
        When the file would be larger than a reader accepts (lower the ``Budget``).
    """
    return save_graph_file(path, graph_file(recorded, **kw))


def save_graph_file(path, gf: GraphFile) -> GraphFile:
    """Write ``gf`` atomically, refusing a file too large to load back."""
    data = dumps(gf).encode("utf-8")
    if len(data) > DEFAULT_LIMITS.max_file_bytes:
        raise ValueError(f"the recording takes {len(data)} bytes; a graph file may take "
                         f"{DEFAULT_LIMITS.max_file_bytes}: record with a smaller Budget")
    write_atomic(path, data)
    return gf


def is_recorded(gf: GraphFile) -> bool:
    """Whether a loaded graph file came from the recorder (it holds a recorded graph)."""
    return gf.recorded is not None


# -- training state ----------------------------------------------------------------------------
def saved_tensors(named: list, budget: Budget) -> tuple[dict[str, SavedTensor], list, list]:
    """Named torch tensors as SavedTensors within ``budget``; also the names left out, and the
    names kept whose grad was not (over the budget): a file says whatever it lacks."""
    tensors, omitted, grads_omitted = {}, [], []
    for entry in named:
        t = entry.tensor
        value = to_numpy(t)
        grad = t.grad if (t.grad_fn is None or t.retains_grad) else None
        grad = None if grad is None else to_numpy(grad)
        if value.dtype.kind != "f" and t.requires_grad:
            omitted.append(entry.name)
            continue
        if budget.keep(value) is None:
            omitted.append(entry.name)
            continue
        if grad is not None and budget.keep(grad) is None:
            grad = None
            grads_omitted.append(entry.name)
        tensors[entry.name] = SavedTensor(value, grad, bool(t.requires_grad))
    return tensors, omitted, grads_omitted


def saved_optimizer(optimizer, names_by_id: dict[int, str], kept: dict,
                    budget: Budget, cut: dict | None = None) -> SavedOptimizer:
    """A torch optimizer's ``state_dict()`` with parameters named, arrays as numpy.

    Parameters whose tensor was not kept (too large, or unnamed) are left out of the groups and
    the state, since a file's optimizer may only name tensors the file holds. ``cut``, when
    given, receives ``{param: [key, ...]}``: the state arrays of kept parameters the budget
    left out.
    """
    state_dict = optimizer.state_dict()
    params_in_order = [p for group in optimizer.param_groups for p in group["params"]]
    index_name = {i: names_by_id.get(id(p)) for i, p in enumerate(params_in_order)}
    groups = []
    for group in state_dict["param_groups"]:
        plain = {k: _plain_hyper(v) for k, v in group.items() if k != "params"}
        plain = {k: v for k, v in plain.items() if v is not _SKIP}
        plain["params"] = [index_name[i] for i in group["params"] if index_name.get(i) in kept]
        groups.append(plain)
    state = {}
    for i, entry in state_dict["state"].items():
        name = index_name.get(i)
        if name not in kept:
            continue
        out = {}
        for key, value in entry.items():
            converted = _state_value(value, budget)
            if converted is not _SKIP:
                out[key] = converted
            elif cut is not None and _is_tensor(value):
                cut.setdefault(name, []).append(key)
        state[name] = out
    return SavedOptimizer(type(optimizer).__name__, groups, state)


_SKIP = object()


def _plain_hyper(value):
    import torch

    if isinstance(value, torch.Tensor):
        value = value.item() if value.numel() == 1 else value.tolist()
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else _SKIP
    if isinstance(value, (list, tuple)):
        items = [_plain_hyper(v) for v in value]
        return _SKIP if any(v is _SKIP for v in items) else items
    return _SKIP


def _is_tensor(value) -> bool:
    import torch

    return isinstance(value, torch.Tensor)


def _state_value(value, budget: Budget):
    import torch

    if isinstance(value, torch.Tensor):
        array = budget.keep(to_numpy(value))
        return _SKIP if array is None else array
    if isinstance(value, bool) or value is None:
        return _SKIP
    if isinstance(value, float):
        return value if math.isfinite(value) else _SKIP
    if isinstance(value, int):
        return value
    return _SKIP


def plain_number(value: float) -> float | str:
    """A float for JSON metadata: itself, or ``"nan"``/``"inf"``/``"-inf"`` (JSON has none)."""
    value = float(value)
    return value if math.isfinite(value) else str(value)


def grad_norm(t) -> float | str | None:
    """The 2-norm of a tensor's ``.grad`` for metadata (None without a grad; ``"nan"``...)."""
    g = t.grad
    if g is None:
        return None
    return plain_number(np.linalg.norm(to_numpy(g).astype(np.float64).ravel()))


def _torch_version() -> str:
    import torch

    return str(torch.__version__)
