"""The one walk that names the tensors of a script's namespace.

Graph labels and ids, the session's snapshots (gradient-buffer rows, the NaN data breakpoint),
saved files (``.gstep`` state, ``.npz``), the builder's workspace and the recorder all name
tensors through :func:`walk`, so a tensor has the same name everywhere.

Rules, in one place:

- **What is walked.** Only the engine's own objects, recognised by type: tensors of exactly the
  engine's ``Tensor``/``Parameter`` classes, instances of ``engine.nn.Module`` (a script's
  ``class Net(nn.Module)`` too) and of ``engine.optim.Optimizer``, and plain ``dict`` (``str``/
  ``int`` keys), ``list`` and ``tuple`` (exact types). Anything that only looks like one (a class
  with a ``named_parameters`` method, a ``list`` subclass) is an ordinary value. No user code
  runs: a module is read through its instance dict (``_parameters``, ``_buffers``, ``_modules``),
  an optimizer through its ``param_groups`` and ``state`` entries, never through methods,
  properties, ``__getattr__`` or ``__iter__``.
- **Spelling.** A namespace binding is its name (``w``); container items are ``xs[0]``,
  ``d['w']``, ``d[3]``; a module's tensors are dotted paths as ``named_parameters`` /
  ``named_buffers`` and ``state_dict`` spell them (``model.fc1.weight``, ``model.0.weight``): that
  is the canonical name (graph ids ``t:<name>``, snapshot rows, file keys). ``expression`` is the
  same tensor as the script writes it (``model[0].weight``), kept for the builder and for search.
  An optimizer's parameter that nothing else names is ``opt.param_groups[0]['params'][1]``.
- **Order.** Deterministic: the namespace's order (names starting with ``_`` skipped), each value
  depth first; a module's parameters in ``named_parameters`` order, then its buffers in
  ``named_buffers`` order; optimizers' parameters after every other value.
- **Depth and size.** Containers nest at most ``MAX_CONTAINER_DEPTH`` deep (``xs[0]['w']`` is
  2), modules ``MAX_MODULE_DEPTH``; at most ``MAX_ITEMS`` items per container and ``MAX_VISITS``
  values in all. A container or module that contains itself is not entered again (cycles).
- **Duplicates.** A tensor reachable under several names is listed once, under the first name in
  that order; the others are its ``aliases``, and it keeps the group of the first module that
  holds it. The same goes for an optimizer bound twice.

The walk is written against a small ``Kinds`` adapter (what is a tensor, a module, an optimizer,
and how to read them); ``ENGINE`` is the engine's, ``engine.record.names`` gives one for torch so
that a recording names the same code's tensors the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MAX_CONTAINER_DEPTH = 3
"""How deep containers are searched (``xs[0]['w']`` is depth 2)."""

MAX_MODULE_DEPTH = 32
"""How deep submodules are searched (``model.layer1.0.conv1`` is depth 3)."""

MAX_ITEMS = 10_000
"""Items looked at per container: a list of a million floats is data, not tensors to draw."""

MAX_VISITS = 200_000
"""Values looked at in all: nested containers must not make a pause slow."""


# ------------------------------------------------------------------------------------ spelling
def item_name(name: str, key) -> str:
    """``xs[0]``, ``d['w']``: an item of a container bound to ``name``."""
    return f"{name}[{key!r}]" if isinstance(key, str) else f"{name}[{int(key)}]"


def attr_name(prefix: str, attr: str) -> str:
    """``model.fc1``: an attribute of ``prefix`` (just ``attr`` when there is no prefix)."""
    return f"{prefix}.{attr}" if prefix else attr


def child_expression(prefix: str, child: str) -> str:
    """A submodule as the script writes it: a numbered child is indexed (``model[0]``)."""
    if child.isdigit() and prefix:
        return f"{prefix}[{child}]"
    return attr_name(prefix, child)


_NUMBERED = re.compile(r"\.(\d+)(?=[.\[]|$)")


def script_expression(name: str) -> str:
    """A canonical name as code (``model.0.weight`` -> ``model[0].weight``), from the string.

    The walk knows each ``NamedTensor.expression`` exactly; this is for a bare name from
    elsewhere (a graph node id). Quoted dict keys are left alone.
    """
    parts = re.split(r"(\[(?:'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\])", name)
    return "".join(p if i % 2 else _NUMBERED.sub(r"[\1]", p) for i, p in enumerate(parts))


# ------------------------------------------------------------------------------------ results
@dataclass
class NamedTensor:
    """A tensor, the name it is listed under and everything else that names it.

    ``group`` is the module path of the module holding it (``model.fc1``), or None;
    ``parameter`` is True when a module registers it as a parameter or an optimizer updates it;
    ``buffer`` when a module registers it as a buffer.
    """

    name: str
    tensor: object
    group: str | None = None
    aliases: list[str] = field(default_factory=list)
    expression: str = ""
    parameter: bool = False
    buffer: bool = False
    alias_expressions: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.expression:
            self.expression = self.name

    @property
    def spellings(self) -> list[str]:
        """Every way to find it, canonical name first: its script spelling when that differs
        (``model[0].weight``), then the aliases and theirs. What a search should match."""
        out = [self.name]
        for s in (self.expression, *self.aliases, *self.alias_expressions):
            if s not in out:
                out.append(s)
        return out

    @property
    def other_spellings(self) -> list[str]:
        return self.spellings[1:]


@dataclass
class NamedOptimizer:
    """An optimizer, its name, and its other names."""

    name: str
    optimizer: object
    aliases: list[str] = field(default_factory=list)


@dataclass
class Naming:
    """The walk's result: ``tensors`` and ``optimizers`` in order, ``modules`` (name, module)
    for every module reached (first name only)."""

    tensors: list[NamedTensor] = field(default_factory=list)
    optimizers: list[NamedOptimizer] = field(default_factory=list)
    modules: list[tuple[str, object]] = field(default_factory=list)
    kinds: Kinds | None = None
    _by_id: dict = field(default_factory=dict, repr=False)

    def name_of(self, tensor) -> str | None:
        entry = self._by_id.get(id(tensor))
        return entry.name if entry is not None else None

    def entry_of(self, tensor) -> NamedTensor | None:
        return self._by_id.get(id(tensor))

    def by_name(self) -> dict:
        """Canonical name -> tensor, in order."""
        return {e.name: e.tensor for e in self.tensors}

    def lookup(self) -> dict:
        """Every spelling (names, aliases, script expressions) -> tensor; canonical names win."""
        out: dict = {}
        for e in self.tensors:
            out[e.name] = e.tensor
        for e in self.tensors:
            for s in e.other_spellings:
                out.setdefault(s, e.tensor)
        return out

    def optimizer(self, name: str):
        for entry in self.optimizers:
            if entry.name == name or name in entry.aliases:
                return entry.optimizer
        return None

    def param_groups(self, optimizer) -> list:
        return self.kinds.param_groups(optimizer)

    def optimizer_state(self, optimizer):
        """``(param, param name, key, value)`` for each parameter's state, in param_groups order.

        Reads the state dict without creating entries (it is a defaultdict).
        """
        state = self.kinds.optimizer_state(optimizer)
        seen = set()
        for group in self.kinds.param_groups(optimizer):
            for p in group_params(group):
                if id(p) in seen:
                    continue
                seen.add(id(p))
                entry = dict.get(state, p) if isinstance(state, dict) else None
                if not isinstance(entry, dict):
                    continue
                name = self.name_of(p)
                for key, value in dict.items(entry):
                    yield p, name, str(key), value


# ------------------------------------------------------------------------------------ kinds
def instance_dict(obj) -> dict:
    """``obj.__dict__`` without running any of its class's attribute code."""
    try:
        d = object.__getattribute__(obj, "__dict__")
    except Exception:
        return {}
    return d if isinstance(d, dict) else {}


def _exact_dict(value) -> dict:
    # read with dict's own methods (``dict.items(d)``), so a subclass's overrides never run
    return value if isinstance(value, dict) else {}


class Kinds:
    """What the walk treats as a tensor, a module and an optimizer (subclass to change)."""

    def is_tensor(self, value) -> bool:
        raise NotImplementedError

    def is_module(self, value) -> bool:
        raise NotImplementedError

    def is_optimizer(self, value) -> bool:
        raise NotImplementedError

    def module_dicts(self, module) -> tuple[dict, dict, dict]:
        """``(_parameters, _buffers, _modules)`` read from the instance dict."""
        d = instance_dict(module)
        return (_exact_dict(d.get("_parameters")), _exact_dict(d.get("_buffers")),
                _exact_dict(d.get("_modules")))

    def param_groups(self, optimizer) -> list:
        groups = instance_dict(optimizer).get("param_groups")
        return groups if isinstance(groups, list) else []

    def optimizer_state(self, optimizer) -> dict:
        return _exact_dict(instance_dict(optimizer).get("state"))


class EngineKinds(Kinds):
    """The engine's classes: exact ``Tensor``/``Parameter``, ``nn.Module`` and ``optim.Optimizer``
    instances (subclasses a script defines included: only their registered tensors are read)."""

    def __init__(self) -> None:
        self._types = None

    def _load(self):
        if self._types is None:
            from .nn.module import Module
            from .nn.parameter import Parameter
            from .optim.optimizer import Optimizer
            from .tensor import Tensor

            self._types = (frozenset({Tensor, Parameter}), Module, Optimizer)
        return self._types

    def is_tensor(self, value) -> bool:
        return type(value) in self._load()[0]

    def is_module(self, value) -> bool:
        return issubclass(type(value), self._load()[1])

    def is_optimizer(self, value) -> bool:
        return issubclass(type(value), self._load()[2])


ENGINE = EngineKinds()


def is_module(value) -> bool:
    """An engine ``nn.Module`` (by type, never by its attributes)."""
    return ENGINE.is_module(value)


def is_optimizer(value) -> bool:
    """An engine ``optim.Optimizer`` (by type)."""
    return ENGINE.is_optimizer(value)


def is_tensor(value) -> bool:
    """An engine tensor of exactly ``Tensor`` or ``Parameter``."""
    return ENGINE.is_tensor(value)


# ------------------------------------------------------------------------------------ the walk
def walk(namespace, kinds: Kinds = ENGINE, *, extra: tuple = ()) -> Naming:
    """Name the tensors, modules and optimizers reachable from ``namespace`` (see the rules above).

    Parameters
    ----------
    namespace : mapping
        Name -> value, e.g. a script's globals or the visible names at a pause.
    kinds : Kinds
        The classes to recognise (``ENGINE``; the recorder passes torch's).
    extra : tuple of (prefix, value)
        More values to walk after the namespace's, under ``prefix`` ("" for none: a module's
        parameters are then named ``fc1.weight``).
    """
    w = _Walk(kinds)
    items = list(dict.items(namespace)) if isinstance(namespace, dict) else list(namespace.items())
    for name, value in items:
        if isinstance(name, str) and name and not name.startswith("_"):
            w.visit(name, name, value, 0)
    for prefix, value in extra:
        w.visit(prefix, prefix, value, 0)
    w.visit_optimizers()
    return w.result


def named_tensors(namespace, kinds: Kinds = ENGINE) -> list[NamedTensor]:
    """The tensors of :func:`walk`, in order."""
    return walk(namespace, kinds).tensors


def group_params(group) -> list:
    """An optimizer group's ``params`` list, read with dict's own methods."""
    if not isinstance(group, dict):
        return []
    params = dict.get(group, "params")
    return params if isinstance(params, list) else list(params) if type(params) is tuple else []


class _Walk:
    def __init__(self, kinds: Kinds) -> None:
        self.kinds = kinds
        self.result = Naming(kinds=kinds)
        self.budget = MAX_VISITS
        self.path: set[int] = set()  # containers and modules being walked (cycles)
        self.modules_seen: set[int] = set()
        self.optimizers: dict[int, NamedOptimizer] = {}

    def visit(self, name: str, expr: str, value, depth: int) -> None:
        self.budget -= 1
        if self.budget < 0:
            return
        kinds = self.kinds
        t = type(value)
        if kinds.is_tensor(value):
            self.add(name, expr, value, None)
        elif t is list or t is tuple:
            if depth < MAX_CONTAINER_DEPTH and self.enter(value):
                for i, item in enumerate(value[:MAX_ITEMS]):
                    self.visit(item_name(name, i), item_name(expr, i), item, depth + 1)
                self.path.discard(id(value))
        elif t is dict:
            if depth < MAX_CONTAINER_DEPTH and self.enter(value):
                for i, (key, item) in enumerate(dict.items(value)):
                    if i >= MAX_ITEMS:
                        break
                    if type(key) is str or type(key) is int:
                        self.visit(item_name(name, key), item_name(expr, key), item, depth + 1)
                self.path.discard(id(value))
        elif kinds.is_module(value):
            self.visit_module(name, expr, value)
        elif kinds.is_optimizer(value):
            entry = self.optimizers.get(id(value))
            if entry is None:
                entry = self.optimizers[id(value)] = NamedOptimizer(name, value)
                self.result.optimizers.append(entry)
            elif name != entry.name:
                entry.aliases.append(name)

    def enter(self, value) -> bool:
        if id(value) in self.path:
            return False
        self.path.add(id(value))
        return True

    def visit_module(self, name: str, expr: str, module) -> None:
        if id(module) not in self.modules_seen:
            self.modules_seen.add(id(module))
            self.result.modules.append((name, module))
        tree = []  # (path, expression, module) in named_modules' order, each module once
        self._modules(name, expr, module, 0, tree, set())
        for key in (0, 1):  # named_parameters, then named_buffers
            for path, mexpr, m in tree:
                members = self.kinds.module_dicts(m)[key]
                for pname, p in dict.items(members):
                    if not isinstance(pname, str) or not self.kinds.is_tensor(p):
                        continue
                    self.budget -= 1
                    if self.budget < 0:
                        return
                    self.add(attr_name(path, pname), attr_name(mexpr, pname), p, path or None,
                             parameter=key == 0, buffer=key == 1)

    def _modules(self, path, expr, module, depth, tree, seen) -> None:
        if id(module) in seen or depth > MAX_MODULE_DEPTH or self.budget < 0:
            return
        seen.add(id(module))
        tree.append((path, expr, module))
        for child_name, child in dict.items(self.kinds.module_dicts(module)[2]):
            if isinstance(child_name, str) and self.kinds.is_module(child):
                self.budget -= 1
                sub = attr_name(path, child_name)
                if id(child) not in self.modules_seen:
                    self.modules_seen.add(id(child))
                    self.result.modules.append((sub, child))
                self._modules(sub, child_expression(expr, child_name), child, depth + 1, tree,
                              seen)

    def visit_optimizers(self) -> None:
        for entry in list(self.result.optimizers):
            base = entry.name
            for g, group in enumerate(self.kinds.param_groups(entry.optimizer)):
                for i, p in enumerate(group_params(group)[:MAX_ITEMS]):
                    if self.kinds.is_tensor(p):
                        n = f"{base}.param_groups[{g}]['params'][{i}]"
                        self.add(n, n, p, None, parameter=True)

    def add(self, name, expr, tensor, group, parameter=False, buffer=False) -> None:
        by_id = self.result._by_id
        entry = by_id.get(id(tensor))
        if entry is None:
            entry = NamedTensor(name, tensor, group, expression=expr, parameter=parameter,
                                buffer=buffer)
            by_id[id(tensor)] = entry
            self.result.tensors.append(entry)
            return
        if name != entry.name and name not in entry.aliases:
            entry.aliases.append(name)
            if expr != name:
                entry.alias_expressions.append(expr)
        if entry.group is None:
            entry.group = group
        entry.parameter = entry.parameter or parameter
        entry.buffer = entry.buffer or buffer
