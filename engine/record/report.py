"""What a recorded file holds, for ``gradstep run FILE`` on a recording (no torch, nothing runs).

``report(gf, path)`` gives it as plain data (the ``--format json`` output): the recorded graph
(node names as PyTorch printed them, ``AddmmBackward0``, with counts, in backward order; the
leaves), and per training iteration its loss and the gradient norm of each parameter.
``print_text(rep, out)`` prints the same for a terminal.

Numbers come from the file's recorded iterations (the saved loss tensor and grads); the
recorder's summary in ``metadata["gradstep.record"]`` fills in what those lack (a loss that was
not a scalar, a grad too large to keep). The metadata is free-form JSON, so it is read only
where it holds plain numbers.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any, TextIO

import numpy as np

from ..files import GraphFile
from .writer import METADATA_KEY

_LOSS_NAME = re.compile(r"_*loss")  # the recorder's root name, prefixed with "_" on a clash


def _number(x: Any) -> float | str | None:
    """A JSON-safe number (``"nan"``/``"inf"``/``"-inf"`` for the non-finite), or None."""
    if isinstance(x, bool):
        return None
    if isinstance(x, (int, float, np.floating, np.integer)):
        x = float(x)
        return x if math.isfinite(x) else ("nan" if math.isnan(x) else
                                           ("inf" if x > 0 else "-inf"))
    if x in ("nan", "inf", "-inf"):
        return x
    return None


def _grad_norm(grad: np.ndarray) -> float | str | None:
    return _number(np.linalg.norm(np.asarray(grad, dtype=np.float64).ravel()))


def _summary(gf: GraphFile) -> tuple[dict, list]:
    meta = gf.metadata.get(METADATA_KEY) if isinstance(gf.metadata, dict) else None
    meta = meta if isinstance(meta, dict) else {}
    iterations = meta.get("iterations")
    iterations = [s if isinstance(s, dict) else {} for s in iterations] \
        if isinstance(iterations, list) else []
    return meta, iterations


def _graph(gf: GraphFile) -> dict:
    recorded = gf.recorded
    kinds = Counter(node.kind for node in recorded.nodes)
    first: dict[str, tuple] = {}
    counts: Counter = Counter()
    for position, node in enumerate(recorded.nodes):
        if node.kind not in ("function", "accumulate"):
            continue
        name = str(node.attrs.get("node_name") or node.label or node.kind)
        counts[name] += 1
        executed = node.attrs.get("executed_index")
        key = (0, executed, position) if isinstance(executed, int) else (1, 0, position)
        first[name] = min(first.get(name, key), key)
    by_id = {node.id: node for node in recorded.nodes}
    # A leaf of the backward graph feeds an AccumulateGrad; the other recorded leaves (a
    # BatchNorm's running_mean, running_var, num_batches_tracked) never met backward().
    accumulated = {e.source for e in recorded.edges
                   if getattr(by_id.get(e.target), "kind", None) == "accumulate"}
    leaves, outside = [], []
    for leaf in recorded.leaves:
        node = by_id.get(leaf)
        attrs = node.attrs if node is not None else {}
        (leaves if leaf in accumulated else outside).append(
            {"name": attrs.get("name") or (node.label if node else leaf),
             "shape": attrs.get("shape"), "dtype": attrs.get("dtype")})
    return {
        "nodes": len(recorded.nodes), "edges": len(recorded.edges),
        "tensors": kinds["tensor"], "functions": kinds["function"],
        "accumulators": kinds["accumulate"],
        "node_names": [{"name": name, "count": counts[name]}
                       for name in sorted(counts, key=first.__getitem__)],
        "leaves": leaves,
        "not_in_backward": outside,
    }


def _iterations(gf: GraphFile, summaries: list) -> list[dict]:
    out = []
    states = gf.recorded.iterations
    for k in range(max(len(states), len(summaries))):
        state = states[k] if k < len(states) else None
        summary = summaries[k] if k < len(summaries) else {}
        loss, norms = None, {}
        if state is not None:
            for name, saved in state.tensors.items():
                if _LOSS_NAME.fullmatch(name) and saved.grad is None:
                    if loss is None and saved.value is not None and saved.value.size == 1:
                        loss = _number(saved.value.reshape(()).item())
                elif saved.grad is not None:
                    norms[name] = _grad_norm(saved.grad)
        if loss is None:
            loss = _number(summary.get("loss"))
        meta_norms = summary.get("grad_norms")
        for name, value in (meta_norms.items() if isinstance(meta_norms, dict) else ()):
            if name not in norms and _number(value) is not None:
                norms[str(name)] = _number(value)
        index = state.iteration if state is not None else k
        out.append({"iteration": index, "loss": loss, "grad_norms": norms})
    return out


def report(gf: GraphFile, path: str, *, iterations: int | None = None) -> dict:
    """What the recording ``gf`` (loaded from ``path``) holds, as plain JSON-safe data.

    ``losses`` has the shape of a script run's report (``engine.cli.report``);
    ``iterations`` is cut to the first ``iterations`` when given.
    """
    meta, summaries = _summary(gf)
    steps = _iterations(gf, summaries)
    if iterations is not None:
        steps = steps[:iterations]
    version = meta.get("torch_version")
    return {
        "file": path,
        "status": "recorded",
        "title": gf.title,
        "torch_version": version if isinstance(version, str) else None,
        "graph": _graph(gf),
        "iterations": steps,
        "losses": [{"iteration": s["iteration"], "loss": s["loss"]} for s in steps
                   if s["loss"] is not None],
    }


def _norm_text(x) -> str:
    return f"{x:.6g}" if isinstance(x, float) else str(x)


def print_text(rep: dict, out: TextIO) -> None:
    """``rep`` (from :func:`report`) for a terminal; losses print in full (``repr``)."""
    g = rep["graph"]
    source = f"PyTorch {rep['torch_version']}" if rep["torch_version"] else "PyTorch"
    n = len(rep["iterations"])
    print(f"{rep['file']}: recorded from {source}, {n} iteration{'s' * (n != 1)}", file=out)
    print(f"  graph of the last backward: {g['nodes']} nodes ({g['tensors']} tensors, "
          f"{g['functions']} functions, {g['accumulators']} accumulators), {g['edges']} edges",
          file=out)
    if g["node_names"]:
        print("\nRecorded graph (nodes in backward order, with counts)", file=out)
        width = max(len(item["name"]) for item in g["node_names"])
        for item in g["node_names"]:
            print(f"  {item['name']:<{width}}  {item['count']}", file=out)
    if g["leaves"]:
        print("\nLeaves", file=out)
        width = max(len(str(leaf["name"])) for leaf in g["leaves"])
        for leaf in g["leaves"]:
            print(f"  {leaf['name']!s:<{width}}  {leaf['dtype'] or ''} {leaf['shape']}", file=out)
    if g["not_in_backward"]:
        names = ", ".join(str(t["name"]) for t in g["not_in_backward"])
        print(f"\nAlso recorded, not in the backward graph (buffers, inputs): {names}", file=out)
    if rep["losses"]:
        print("\nLoss per iteration", file=out)
        for item in rep["losses"]:
            loss = item["loss"]
            text = repr(loss) if isinstance(loss, float) else str(loss)
            print(f"  {item['iteration']:>5}  {text}", file=out)
    if any(s["grad_norms"] for s in rep["iterations"]):
        print("\nGradient norm per parameter", file=out)
        for s in rep["iterations"]:
            print(f"  iteration {s['iteration']}", file=out)
            width = max((len(name) for name in s["grad_norms"]), default=0)
            for name, value in s["grad_norms"].items():
                print(f"    {name:<{width}}  {_norm_text(value)}", file=out)
