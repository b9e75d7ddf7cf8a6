"""Capture a live torch autograd graph into a :class:`engine.files.Recorded`.

``capture(output)`` takes the graph as it stands; ``record_backward(output)`` also runs
``output.backward()`` with hooks on every node and records the gradients that flowed. The nodes,
their ids, attributes and order are those of ``engine.graph.build_graph`` for the same code, so
``engine.record.recorded_graph`` gives the window the graph it already knows how to draw.

The file keeps one edge per use of an input (``t1 * t1`` gives two edges from ``t1``'s
accumulator), written in the consumer's ``next_functions`` order, each with the gradient sent along
it; a function node's ``attrs["next_functions"]`` lists its inputs' ids slot by slot.
"""

from __future__ import annotations

import math

from ..files.codec import encode_array
from ..files.format import Recorded, RecordedEdge, RecordedNode
from ..graph.ids import label_of, tensor_id
from ._torch import require_torch
from .arrays import SMALL_SAVED_ELEMENTS, Budget, stats, to_numpy
from .hooks import TOO_LARGE, BackwardHooks, BackwardTrace
from .modules import MODULE_KEY
from .names import NamedTorchTensor, named_torch_tensors
from .walk import GraphWalk, is_accumulate

DEFAULT_ROOT_NAME = "loss"


class Recording:
    """A torch graph walked once, its saved tensors read, ready to record a backward through it.

    Parameters
    ----------
    output : torch.Tensor
        The tensor whose ``grad_fn`` graph is recorded (usually the loss).
    names : dict, optional
        Name -> tensor or module (a script's namespace works), for readable names.
    model : torch.nn.Module, optional
        Its parameters are named by their path (``layer1.0.conv1.weight``) and grouped by module.
    name : str
        The output's name when ``names`` does not name it.
    model_prefix : str
        Prefix for the model's parameter names and groups (``"model"``: ``model.fc1.weight``).
    """

    def __init__(self, output, *, names: dict | None = None, model=None,
                 name: str = DEFAULT_ROOT_NAME, model_prefix: str = "") -> None:
        torch = require_torch()
        if not isinstance(output, torch.Tensor):
            raise TypeError(f"expected a torch.Tensor to record, got {type(output).__name__}")
        named = named_torch_tensors(names, model, model_prefix)
        if not any(entry.tensor is output for entry in named):
            named.append(NamedTorchTensor(_free_name(name, named), output))
        self.output = output
        self.named = named
        self.walk = GraphWalk(named)
        self.saved = {id(fn): _saved_info(fn) for fn in self.walk.fns if not is_accumulate(fn)}
        self.trace = BackwardTrace()

    def backward(self, gradient=None, retain_graph=None, max_elements: int | None = None) -> None:
        """Run ``output.backward(gradient)`` with hooks on every node, recording what flowed.

        Gradients larger than ``max_elements`` are not kept (see ``BackwardHooks``).
        """
        with self.hooks(max_elements) as hooks:
            self.output.backward(gradient, retain_graph=retain_graph)
        self.trace = hooks.trace

    def hooks(self, max_elements: int | None = None) -> BackwardHooks:
        """Node hooks for a backward the caller runs (then ``use_trace(hooks.trace)``)."""
        return BackwardHooks(self.walk.fns, max_elements)

    def use_trace(self, trace: BackwardTrace) -> None:
        self.trace = trace

    def to_recorded(self, budget: Budget | None = None) -> Recorded:
        """The recording as graph-file data, keeping arrays within ``budget``."""
        return _Emitter(self, budget or Budget()).emit()


def capture(output, *, names: dict | None = None, model=None, name: str = DEFAULT_ROOT_NAME,
            model_prefix: str = "", budget: Budget | None = None) -> Recorded:
    """Record the graph behind a live torch tensor, as it stands (grads already there included).

    Parameters
    ----------
    output : torch.Tensor
        Usually the loss; its ``grad_fn`` graph is walked through ``next_functions``.
    names : dict, optional
        Name -> tensor or module (or containers of them) for readable names.
    model : torch.nn.Module, optional
        Names parameters by their path and groups them by module.
    name : str
        The output's name unless ``names`` gives one.
    model_prefix : str
        Prefix for the model's names and groups.
    budget : Budget, optional
        How many array elements to keep (see ``engine.record.arrays``).

    Returns
    -------
    engine.files.Recorded
        Nodes, edges and leaves; no edge gradients (nothing was watched flowing). Function nodes
        carry a module group only if they were made under a ``ModuleWatcher`` (or a session).
    """
    rec = Recording(output, names=names, model=model, name=name, model_prefix=model_prefix)
    return rec.to_recorded(budget)


def record_backward(output, path=None, *, names: dict | None = None, model=None,
                    gradient=None, retain_graph=None, name: str = DEFAULT_ROOT_NAME,
                    model_prefix: str = "", budget: Budget | None = None,
                    title: str = "") -> Recorded:
    """Run ``output.backward(gradient)`` with hooks on every node and record what flowed.

    Parameters
    ----------
    output : torch.Tensor
        The tensor to differentiate (a scalar loss, or pass ``gradient``).
    path : str or os.PathLike, optional
        Also write the recording to this ``.gstep`` file.
    names, model, name, model_prefix, budget
        As for :func:`capture`.
    gradient : torch.Tensor, optional
        The gradient of ``output`` (``backward``'s argument).
    retain_graph : bool, optional
        As for ``backward``.
    title : str
        The file's title.

    Returns
    -------
    engine.files.Recorded
        The graph with each edge's gradient, leaves' grads after the backward, and each node's
        ``executed_index`` (PyTorch's execution order).
    """
    budget = budget or Budget()
    rec = Recording(output, names=names, model=model, name=name, model_prefix=model_prefix)
    rec.backward(gradient, retain_graph, budget.max_array_elements)
    recorded = rec.to_recorded(budget)
    if path is not None:
        from .writer import write

        write(path, recorded, title=title)
    return recorded


class _Emitter:
    """Turns a Recording into Recorded nodes and edges, in the engine model's creation order."""

    def __init__(self, rec: Recording, budget: Budget) -> None:
        self.rec = rec
        self.walk = rec.walk
        self.trace = rec.trace
        self.budget = budget

    def emit(self) -> Recorded:
        walk = self.walk
        items = []  # (order key, tie, RecordedNode)
        edges = []  # RecordedEdge, one per use, in each consumer's next_functions order
        leaves = []
        first_use = walk.first_uses()
        tensor_items = []  # (key, tie, node id, tensor, entry) emitted after the budget pass
        tie = 0
        for fn in walk.fns:
            node_id = walk.fn_ids[id(fn)]
            if is_accumulate(fn):
                key = first_use.get(id(fn), -1.0) - 0.5
                leaf_id, leaf = walk.leaf_of(fn)
                items.append((key, tie, self._accumulate_node(fn, node_id, leaf_id)))
                if leaf is not None:
                    tensor_items.append((key - 0.25, tie, leaf_id, leaf, None))
                edges.append(self._leaf_edge(fn, leaf_id, node_id))
            else:
                items.append((float(fn._sequence_nr()), tie, self._function_node(fn, node_id)))
                edges.extend(self._input_edges(fn, node_id))
            tie += 1
        for entry in self.rec.named:
            t = entry.tensor
            node_id = tensor_id(entry.name)
            if t.grad_fn is not None:
                key = float(t.grad_fn._sequence_nr()) + 0.25
                edges.append(self._output_edge(t, node_id))
            else:
                acc = walk.accumulator_of.get(id(t))
                key = first_use.get(id(acc), 0.0) - 0.75 if acc is not None else -1.0
            tensor_items.append((key, tie, node_id, t, entry))
            tie += 1
        # Leaves' values and grads get the budget first: they are what users look at most.
        tensor_items.sort(key=lambda item: (item[3].grad_fn is not None, item[0], item[1]))
        for key, t_tie, node_id, t, entry in tensor_items:
            items.append((key, t_tie, self._tensor_node(t, node_id, entry)))
            if t.grad_fn is None:
                leaves.append(node_id)
        by_id = {node.id: node for _, _, node in items}
        for edge in self._charge_edges(edges):
            # A consumer's gradient for its input is one part of the sum the input's node
            # received: with a part missing, a replay must show None, not the sum of the rest.
            if by_id[edge.target].kind == "function":
                by_id[edge.source].attrs["grads_incomplete"] = True
        items.sort(key=lambda item: (item[0], item[1]))
        order = {node.id: i for i, (_, _, node) in enumerate(items)}
        leaves.sort(key=order.__getitem__)
        return Recorded([node for _, _, node in items], edges, leaves)

    # -- nodes ---------------------------------------------------------------------------------
    def _tensor_node(self, t, node_id: str, entry) -> RecordedNode:
        name = entry.name if entry is not None else None
        value = to_numpy(t)
        grad_tensor = t.grad if (t.grad_fn is None or t.retains_grad) else None
        grad = None if grad_tensor is None else to_numpy(grad_tensor)
        attrs = {
            "name": name,
            "aliases": list(entry.aliases) if entry is not None else [],
            "is_leaf": t.grad_fn is None,
            "requires_grad": bool(t.requires_grad),
            "retains_grad": bool(t.retains_grad),
            "shape": list(t.shape),
            "dtype": str(t.dtype),
            "group": entry.group if entry is not None else None,
            "output_nr": int(t.output_nr),
            "version": int(t._version),
        }
        kept_value, kept_grad = self.budget.keep(value), self.budget.keep(grad)
        if kept_value is None:
            attrs["value_stats"] = stats(value)
        if grad is not None and kept_grad is None:
            attrs["grad_stats"] = stats(grad)
        label = name if name is not None else str(tuple(int(n) for n in t.shape))
        return RecordedNode(node_id, "tensor", label, attrs, kept_value, kept_grad)

    def _common_attrs(self, fn) -> dict:
        executed = self.trace.get(fn)
        metadata = fn.metadata
        return {
            "node_name": fn.name(),
            "type": type(fn).__name__,
            "executed_index": executed.index if executed is not None else None,
            "group": metadata.get(MODULE_KEY) if metadata else None,
        }

    def _function_node(self, fn, node_id: str) -> RecordedNode:
        attrs = self._common_attrs(fn)
        saved, saved_values, saved_args, freed = self.rec.saved[id(fn)]
        executed = self.trace.get(fn)
        attrs.update(
            num_outputs=len(executed.grads_in) if executed is not None else None,
            sequence_nr=int(fn._sequence_nr()), saved=saved, saved_values=saved_values,
            saved_args=saved_args, freed=freed,
            next_functions=[None if nxt is None else [self.walk.fn_ids[id(nxt)], int(nr)]
                            for nxt, nr in fn.next_functions],
        )
        return RecordedNode(node_id, "function", label_of(fn.name()), attrs)

    def _accumulate_node(self, acc, node_id: str, leaf_id: str) -> RecordedNode:
        attrs = self._common_attrs(acc)
        entry = self.walk.by_tensor.get(id(acc.variable))
        if attrs["group"] is None and entry is not None:
            attrs["group"] = entry.group
        attrs.update(variable=leaf_id)
        return RecordedNode(node_id, "accumulate", label_of(acc.name()), attrs)

    # -- edges ---------------------------------------------------------------------------------
    def _input_edges(self, fn, node_id: str) -> list[RecordedEdge]:
        executed = self.trace.get(fn)
        out = []
        for i, (nxt, _) in enumerate(fn.next_functions):
            if nxt is None:
                continue
            grad = executed.grads_out[i] if executed is not None else None
            out.append(RecordedEdge(self.walk.fn_ids[id(nxt)], node_id, grad))
        return out

    def _leaf_edge(self, acc, leaf_id: str, node_id: str) -> RecordedEdge:
        executed = self.trace.get(acc)
        grad = executed.grads_in[0] if executed is not None and executed.grads_in else None
        return RecordedEdge(leaf_id, node_id, grad)

    def _output_edge(self, t, node_id: str) -> RecordedEdge:
        executed = self.trace.get(t.grad_fn)
        nr = t.output_nr
        grad = None
        if executed is not None and nr < len(executed.grads_in):
            grad = executed.grads_in[nr]
        return RecordedEdge(self.walk.fn_ids[id(t.grad_fn)], node_id, grad)

    def _charge_edges(self, edges: list[RecordedEdge]) -> list[RecordedEdge]:
        """Keep edge gradients within the budget; returns the edges whose gradient was dropped.

        Charged after the tensors (leaves first), in discovery order: from the loss outwards.
        """
        dropped = []
        for edge in edges:
            if edge.grad is TOO_LARGE or (edge.grad is not None
                                          and self.budget.keep(edge.grad) is None):
                edge.grad = None
                dropped.append(edge)
        return dropped


# -- saved tensors -----------------------------------------------------------------------------
_SAVED_ATTRS: dict[type, tuple[str, ...]] = {}


def _saved_attrs(fn) -> tuple[str, ...]:
    cls = type(fn)
    names = _SAVED_ATTRS.get(cls)
    if names is None:
        names = tuple(a for a in dir(fn) if a.startswith("_saved_"))
        _SAVED_ATTRS[cls] = names
    return names


def _saved_info(fn) -> tuple[dict, dict, dict, bool]:
    """(role -> [shape, dtype], role -> small value, role -> plain argument, freed)."""
    import torch

    saved, values, args = {}, {}, {}
    for attr in _saved_attrs(fn):
        role = attr[len("_saved_"):]
        try:
            value = getattr(fn, attr)
        except RuntimeError:  # "Trying to backward through the graph a second time": freed
            return {}, {}, {}, True
        if isinstance(value, torch.Tensor):
            saved[role] = [list(value.shape), str(value.dtype)]
            if value.numel() <= SMALL_SAVED_ELEMENTS and not value.is_complex():
                values[role] = encode_array(to_numpy(value))
        else:
            plain = _plain(value)
            if plain is not None:
                args[role] = plain
    return saved, values, args, False


def _plain(value):
    """A saved non-tensor argument as JSON (ints, finite floats, bools, short lists), or None."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value if abs(value) < 2**63 else None  # a SymInt or sentinel, not a size
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)) and len(value) <= 32:
        items = [_plain(v) for v in value]
        return items if all(v is not None for v in items) else None
    return None


def _free_name(name: str, named: list) -> str:
    taken = {entry.name for entry in named}
    candidate, k = name, 1
    while candidate in taken:
        k += 1
        candidate = f"{name}{k}"
    return candidate
