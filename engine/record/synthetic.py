"""A synthetic recording of any size, shaped like a deep network's backward, for benchmarks
and scale tests (no torch needed): ``synthetic_recorded(n)``.

The graph is a chain of ops grouped into modules (``block{b}.layer{l}``), each reading the
previous result and, every ``param_every``-th op, a parameter through its ``AccumulateGrad``; now
and then an op adds a result from a few ops back (a residual). Arrays are tiny, so the file stays
small and what is measured is the graph's size, not the numbers'.
"""

from __future__ import annotations

import numpy as np

from ..files import Recorded, RecordedEdge, RecordedNode, SavedState, SavedTensor

ACCUMULATE = "torch::autograd::AccumulateGrad"
_NAMES = ("AddmmBackward0", "ReluBackward0", "MulBackward0", "AddBackward0", "TanhBackward0")


def synthetic_recorded(n_nodes: int, *, ops_per_layer: int = 12, layers_per_block: int = 8,
                       residual_every: int = 7, param_every: int = 4, iterations: int = 1,
                       seed: int = 0) -> Recorded:
    """A recorded backward of about ``n_nodes`` graph nodes (every op executed), with
    ``iterations`` saved iterations (a loss and each parameter's value and grad per iteration).
    """
    rng = np.random.default_rng(seed)
    shape = (1,)
    nodes: list[RecordedNode] = []
    edges: list[RecordedEdge] = []
    leaves: list[str] = []
    ops: list[tuple[str, list]] = []  # (id, next_functions)
    params: list[str] = []

    def grad():
        return rng.standard_normal(shape).astype(np.float32)

    nodes.append(RecordedNode("t:x", "tensor", "x", {
        "name": "x", "aliases": [], "is_leaf": True, "requires_grad": False,
        "retains_grad": False, "shape": list(shape), "dtype": "torch.float32", "group": None,
        "output_nr": 0, "version": 0}, value=np.ones(shape, np.float32)))
    leaves.append("t:x")
    i = 0
    while len(nodes) < n_nodes - 2:
        layer = i // ops_per_layer
        group = f"block{layer // layers_per_block}.layer{layer % layers_per_block}"
        op_id = f"op{i}"
        nexts: list = []
        if ops:
            nexts.append([ops[-1][0], 0])
            edges.append(RecordedEdge(ops[-1][0], op_id, grad()))
        else:
            edges.append(RecordedEdge("t:x", op_id, None))
            nexts.append(None)
        if i % param_every == 0:
            pname = f"{group}.w{i % ops_per_layer}"
            acc = f"t:{pname}/AccumulateGrad"
            g = grad()
            nodes.append(RecordedNode(f"t:{pname}", "tensor", pname, {
                "name": pname, "aliases": [], "is_leaf": True, "requires_grad": True,
                "retains_grad": False, "shape": list(shape), "dtype": "torch.float32",
                "group": group, "output_nr": 0, "version": 1},
                value=rng.standard_normal(shape).astype(np.float32), grad=g))
            nodes.append(RecordedNode(acc, "accumulate", "AccumulateGrad", {
                "node_name": ACCUMULATE, "type": "AccumulateGrad", "group": group,
                "variable": f"t:{pname}"}))
            edges.append(RecordedEdge(f"t:{pname}", acc, g))
            edges.append(RecordedEdge(acc, op_id, g))
            nexts.append([acc, 0])
            leaves.append(f"t:{pname}")
            params.append(pname)
        elif residual_every and i % residual_every == 0 and len(ops) > 4:
            back = ops[-1 - int(rng.integers(2, 5))][0]
            edges.append(RecordedEdge(back, op_id, grad()))
            nexts.append([back, 0])
        name = _NAMES[i % len(_NAMES)]
        nodes.append(RecordedNode(op_id, "function", name, {
            "node_name": name, "type": name, "group": group, "num_outputs": 1,
            "sequence_nr": i, "freed": False, "next_functions": nexts}))
        ops.append((op_id, nexts))
        i += 1
    nodes.append(RecordedNode("t:loss", "tensor", "loss", {
        "name": "loss", "aliases": [], "is_leaf": False, "requires_grad": True,
        "retains_grad": False, "shape": [], "dtype": "torch.float32", "group": None,
        "output_nr": 0, "version": 0}, value=np.array(1.0, np.float32)))
    edges.append(RecordedEdge(ops[-1][0], "t:loss", np.array(1.0, np.float32)))
    _number_backward(nodes, edges)
    by_id = {n.id: n for n in nodes}
    states = []
    for k in range(iterations):
        tensors = {p: SavedTensor(by_id[f"t:{p}"].value - 0.01 * k, by_id[f"t:{p}"].grad, True)
                   for p in params}
        tensors["loss"] = SavedTensor(np.array(1.0 / (k + 1), np.float32), None, True)
        states.append(SavedState(k, tensors, {}))
    return Recorded(nodes, edges, leaves, states)


def _number_backward(nodes: list[RecordedNode], edges: list[RecordedEdge]) -> None:
    """``executed_index`` in a topological order from the loss (every function and accumulator
    runs once, after every consumer of its output)."""
    consumers: dict[str, int] = {}
    inputs: dict[str, list[str]] = {}
    kinds = {n.id: n.kind for n in nodes}
    for e in edges:
        if kinds[e.source] != "tensor" and kinds[e.target] != "tensor":
            consumers[e.source] = consumers.get(e.source, 0) + 1
            inputs.setdefault(e.target, []).append(e.source)
    ready = [n.id for n in nodes if n.kind == "function" and not consumers.get(n.id)]
    order: dict[str, int] = {}
    while ready:
        node = ready.pop()
        order[node] = len(order)
        for source in inputs.get(node, ()):
            consumers[source] -= 1
            if consumers[source] == 0:
                ready.append(source)
    for n in nodes:
        if n.id in order:
            n.attrs["executed_index"] = order[n.id]
            n.attrs["executed"] = True
