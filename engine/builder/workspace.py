"""What the builder can point at: the script's tensors, optimizers and modules, and taken names.

``describe`` runs on the worker after every debugger command, over possibly thousands of tensors,
so it reads metadata only (shapes, flags, node names) and never copies an array.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass, field

from .. import naming
from ..tensor import Tensor


@dataclass(frozen=True)
class TensorInfo:
    """One tensor as the builder sees it; ``name`` is an expression the script can use."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    requires_grad: bool
    is_leaf: bool
    grad_fn: str | None
    retains_grad: bool
    has_grad: bool
    graph_freed: bool = False  # a backward() already freed part of its graph: another one fails
    # the graph's name for it (node id ``t:<graph_name>``) if not ``name``
    graph_name: str | None = None
    strides: tuple[int, ...] | None = None  # in elements, only when not contiguous (``view`` cares)

    @property
    def numel(self) -> int:
        n = 1
        for size in self.shape:
            n *= size
        return n

    @property
    def is_floating_point(self) -> bool:
        return self.dtype.startswith("float")

    @property
    def label(self) -> str:
        if not self.shape:
            return f"{self.dtype} scalar"
        return f"{self.dtype}[{', '.join(map(str, self.shape))}]"


@dataclass(frozen=True)
class OptimizerInfo:
    """An optimizer bound in the script: its class name and the names of the tensors it updates."""

    name: str
    kind: str
    params: tuple[str, ...]


@dataclass(frozen=True)
class ModuleSpec:
    """A module's structure, enough to build a fresh one for a dry run (``engine.builder.modules``).

    ``kind`` is the class name (``Linear``, ``Sequential``, ``ReLU``...), ``args`` its
    constructor's arguments as ``(name, value)`` pairs (a Linear's include its ``dtype``),
    ``children`` a Sequential's specs. Hashable: verdicts are cached by it.
    """

    kind: str
    args: tuple = ()
    children: tuple = ()

    def arg(self, name: str, default=None):
        return dict(self.args).get(name, default)

    def walk(self):
        """This spec and every spec inside it."""
        yield self
        for child in self.children:
            yield from child.walk()


@dataclass(frozen=True)
class Workspace:
    tensors: dict = field(default_factory=dict)  # name -> TensorInfo, in the namespace's order
    optimizers: dict = field(default_factory=dict)  # name -> OptimizerInfo
    modules: dict = field(default_factory=dict)  # name -> the module's class name
    taken: frozenset = frozenset()
    # name -> ModuleSpec, or None for a module the builder cannot rebuild (the script's own
    # class, one with hooks): its calls are written unchecked
    module_specs: dict = field(default_factory=dict)

    @classmethod
    def empty(cls) -> "Workspace":
        return cls()


def describe(namespace: dict, source: str = "") -> Workspace:
    """The workspace of a namespace (a script's globals) and the script's text."""
    walked = naming.walk(namespace)
    named = walked.tensors
    freed_memo: dict[int, bool] = {}
    infos = [tensor_info(n.expression, n.tensor, freed_memo, n.name) for n in named]
    tensors = {info.name: info for info in infos}
    name_of = {id(n.tensor): info.name for n, info in zip(named, infos)}
    optimizers: dict[str, OptimizerInfo] = {}
    modules: dict[str, str] = {}
    module_specs: dict = {}
    for entry in walked.optimizers:
        if entry.name in namespace:  # bound to a name: what a gesture can call ``.step()`` on
            optimizers[entry.name] = OptimizerInfo(
                entry.name, type(entry.optimizer).__name__,
                _optimizer_params(walked, entry.optimizer, name_of))
    for key, value in list(namespace.items()):
        if isinstance(key, str) and not key.startswith("_") and _is_module(value):
            modules[key] = type(value).__name__
            module_specs[key] = module_spec(value)
    taken = frozenset(k for k in namespace if isinstance(k, str)) | names_bound_in(source)
    return Workspace(tensors, optimizers, modules, taken, module_specs)


def script_expression(graph_name: str) -> str:
    """The expression for a graph name: ``model.0.weight`` (a Sequential's child) is
    ``model[0].weight``."""
    return naming.script_expression(graph_name)


def tensor_info(
    name: str, t: Tensor, freed_memo: dict | None = None, graph_name: str | None = None
) -> TensorInfo:
    fn = t.grad_fn
    return TensorInfo(
        name=name,
        shape=tuple(int(s) for s in t._data.shape),
        dtype=t._data.dtype.name,  # numpy's names are PyTorch's for every dtype the engine has
        requires_grad=t.requires_grad,
        is_leaf=fn is None,
        grad_fn=fn.name() if fn is not None else None,
        retains_grad=t.retains_grad,
        has_grad=t._grad is not None,  # ``.grad`` of a non-leaf would warn
        graph_freed=fn is not None and _graph_freed(fn, {} if freed_memo is None else freed_memo),
        graph_name=graph_name if graph_name != name else None,
        strides=None if t._data.flags.c_contiguous else _element_strides(t._data),
    )


def _element_strides(data) -> tuple[int, ...] | None:
    item = data.itemsize
    strides = tuple(s // item for s in data.strides)
    return strides if all(s >= 0 for s in strides) else None  # a flipped view: no stand-in for it


def _graph_freed(root, memo: dict) -> bool:
    """Whether any node under ``root`` has freed its buffers. ``memo`` (node id -> answer) is
    shared by all tensors of one ``describe``, so each node is visited once in all."""
    stack = [(root, False)]
    while stack:  # an iterative post-order walk: graphs can be deeper than Python's recursion
        node, children_done = stack.pop()
        if id(node) in memo and not children_done:
            continue
        if not children_done and getattr(node, "freed", False):
            # freed itself: the answer, whatever is below (after a backward without
            # retain_graph the root is freed, and a 10,000-node chain is not walked)
            memo[id(node)] = True
            continue
        nexts = [n for n, _ in getattr(node, "next_functions", ()) if n is not None]
        if children_done:
            memo[id(node)] = any(memo.get(id(n), False) for n in nexts)
            continue
        memo[id(node)] = False  # in progress; graphs are acyclic, so never read before final
        stack.append((node, True))
        stack.extend((n, False) for n in nexts if id(n) not in memo)
    return memo[id(root)]


def _is_module(value) -> bool:
    # by type, never by attributes (engine.naming): a look-alike is an ordinary value
    return naming.is_module(value)


# The engine's module classes a spec can rebuild, with the attributes their constructors take.
_SPEC_ATTRS = {
    "Identity": (), "Tanh": (), "Sigmoid": (),
    "ReLU": ("inplace",), "SiLU": ("inplace",), "LeakyReLU": ("negative_slope", "inplace"),
    "ELU": ("alpha", "inplace"), "GELU": ("approximate",), "Softplus": ("beta", "threshold"),
    "Softmax": ("dim",), "LogSoftmax": ("dim",), "Flatten": ("start_dim", "end_dim"),
}
_MAX_SPEC_DEPTH = 32
_DROPOUTS = frozenset({"Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
                       "FeatureAlphaDropout"})


def module_spec(module, _depth: int = 0) -> ModuleSpec | None:
    """The structure of ``module`` (see ``ModuleSpec``), or None when it is not built only of
    the engine's own Linear, Sequential, activations, Flatten, Identity and Dropout (a class the
    script defines has its own ``forward``; hooks could change anything). Reads attributes only."""
    from .. import nn

    cls = type(module)
    if cls.__name__ in _DROPOUTS:  # random: never dry-run, whatever it is built of
        p = naming.instance_dict(module).get("p")  # no getattr: a script's class may be a property
        return ModuleSpec("Dropout", (("p", p if isinstance(p, (int, float)) else None),))
    if not cls.__module__.startswith("engine.nn.") or _depth > _MAX_SPEC_DEPTH:
        return None
    if getattr(module, "_forward_hooks", None) or getattr(module, "_forward_pre_hooks", None):
        return None
    try:
        if cls is nn.Linear:
            weight = module.weight
            return ModuleSpec("Linear", (("in_features", int(module.in_features)),
                                         ("out_features", int(module.out_features)),
                                         ("bias", module.bias is not None),
                                         ("dtype", weight._data.dtype.name),
                                         ("weight_shape", tuple(weight._data.shape))))
        if cls is nn.Sequential:
            children = tuple(module_spec(child, _depth + 1) for child in module)
            if any(c is None for c in children):
                return None
            return ModuleSpec("Sequential", (), children)
        attrs = _SPEC_ATTRS.get(cls.__name__)
        if attrs is not None and cls is getattr(nn, cls.__name__, None):
            return ModuleSpec(cls.__name__, tuple((a, getattr(module, a)) for a in attrs))
    except (AttributeError, TypeError, ValueError):
        return None
    return None


def _optimizer_params(walked, optimizer, name_of: dict) -> tuple[str, ...]:
    names = []
    for group in walked.param_groups(optimizer):
        for p in naming.group_params(group):
            name = name_of.get(id(p))
            if name is not None:
                names.append(name)
    return tuple(names)


@functools.lru_cache(maxsize=16)  # the same text is asked about many times per refresh
def names_bound_in(source: str) -> frozenset:
    """Every name the script binds at any depth; empty when it does not parse."""
    if not source:
        return frozenset()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return frozenset()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                names.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name != "*":
                    names.add(alias.asname or alias.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return frozenset(names)
