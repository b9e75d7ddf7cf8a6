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
import sys
import weakref
from dataclasses import dataclass, field
from itertools import chain, islice

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
    """What the walk treats as a tensor, a module and an optimizer (subclass to change).

    Each answer depends on the value's type alone (the walk asks once per type and walk).
    """

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
    cache = w.kind_cache
    skipped = 0  # values that name nothing cost one visit each, charged in bulk (see _items)
    for name, value in items:
        if isinstance(name, str) and name and not name.startswith("_"):
            if cache.get(type(value)) is _LEAF:
                skipped += 1
                continue
            w.budget -= skipped
            skipped = 0
            w.visit(name, name, value, 0)
    w.budget -= skipped
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


# What a value is to the walk, decided by its type (``Kinds`` decides by type too).
_LEAF, _TENSOR, _SEQUENCE, _DICT, _MODULE, _OPTIMIZER = range(6)
# Types that never hold a tensor: known before any Kinds is asked.
_LEAF_TYPES = dict.fromkeys((int, float, bool, complex, str, bytes, type(None), range, slice),
                            _LEAF)


_ENGINE_KINDS: dict = dict(_LEAF_TYPES)  # and the lasting types ENGINE's walks have met


def _lasting(t: type) -> bool:
    """A type Python or the engine defines (kept for good), not one of a script's classes."""
    module = type.__dict__["__module__"].__get__(t)
    if module == "builtins":
        return True
    if not isinstance(module, str) or not (module == "engine" or module.startswith("engine.")):
        return False
    defined = sys.modules.get(module)
    return defined is not None and vars(defined).get(type.__dict__["__name__"].__get__(t)) is t


class _Walk:
    def __init__(self, kinds: Kinds) -> None:
        self.kinds = kinds
        self.result = Naming(kinds=kinds)
        self.budget = MAX_VISITS
        self.path: set[int] = set()  # containers and modules being walked (cycles)
        self.modules_seen: set[int] = set()
        self.optimizers: dict[int, NamedOptimizer] = {}
        # type -> _LEAF ... _OPTIMIZER, for this walk (a script's classes are not kept after it)
        self.kind_cache: dict = dict(_ENGINE_KINDS if kinds is ENGINE else _LEAF_TYPES)
        # (id(module), name, expr) -> visits: already walked in this walk
        self.plans_applied: dict = {}
        self.modules_read: dict = {}  # id(module) -> what _module_plan read of it in this walk

    def kind(self, value) -> int:
        t = type(value)
        k = self.kind_cache.get(t)
        if k is None:
            kinds = self.kinds
            if kinds.is_tensor(value):
                k = _TENSOR
            elif t is list or t is tuple:
                k = _SEQUENCE
            elif t is dict:
                k = _DICT
            elif kinds.is_module(value):
                k = _MODULE
            elif kinds.is_optimizer(value):
                k = _OPTIMIZER
            else:
                k = _LEAF
            self.kind_cache[t] = k
            if kinds is ENGINE and _lasting(t):
                _ENGINE_KINDS[t] = k
        return k

    def visit(self, name: str, expr: str, value, depth: int) -> None:
        self.budget -= 1
        if self.budget < 0:
            return
        k = self.kind(value)
        if k == _TENSOR:
            self.add(name, expr, value, None)
        elif k == _SEQUENCE:
            if depth < MAX_CONTAINER_DEPTH and self.enter(value):
                self._items(name, expr, enumerate(value[:MAX_ITEMS]), depth + 1)
                self.path.discard(id(value))
        elif k == _DICT:
            if depth < MAX_CONTAINER_DEPTH and self.enter(value):
                self._items(name, expr, islice(dict.items(value), MAX_ITEMS), depth + 1,
                            keyed=True)
                self.path.discard(id(value))
        elif k == _MODULE:
            self.visit_module(name, expr, value)
        elif k == _OPTIMIZER:
            entry = self.optimizers.get(id(value))
            if entry is None:
                entry = self.optimizers[id(value)] = NamedOptimizer(name, value)
                self.result.optimizers.append(entry)
            elif name != entry.name:
                entry.aliases.append(name)

    def _items(self, name: str, expr: str, pairs, depth: int, keyed: bool = False) -> None:
        """Visit a container's ``(key, item)`` pairs. An item that names nothing (a float, a
        string) only costs its visit: those are charged in bulk and get no name built, so a
        list of 10,000 floats is one quick loop. Charging a run of them before the next item
        that is visited leaves the budget exactly as visiting each would."""
        cache = self.kind_cache
        skipped = 0
        for key, item in pairs:
            if keyed and type(key) is not str and type(key) is not int:
                continue  # other keys are not spelled (and cost nothing)
            k = cache.get(type(item))
            if k is None:
                k = self.kind(item)
            if k == _LEAF:
                skipped += 1
                continue
            self.budget -= skipped
            skipped = 0
            self.visit(item_name(name, key), item_name(expr, key), item, depth)
        self.budget -= skipped

    def enter(self, value) -> bool:
        if id(value) in self.path:
            return False
        self.path.add(id(value))
        return True

    def visit_module(self, name: str, expr: str, module) -> None:
        if id(module) not in self.modules_seen:
            self.modules_seen.add(id(module))
            self.result.modules.append((name, module))
        key = (id(module), name, expr)
        spent = self.plans_applied.get(key)
        if spent is not None:
            # the same module under the same name again (a global and a local): it adds
            # nothing new, only its visits are counted
            self.budget -= spent
            return
        plan = _module_plan(self.kinds, name, expr, module, self.modules_read)
        if self.budget < plan.spent:
            self._visit_module_slowly(name, expr, module)  # the budget runs out inside it
            return
        self.plans_applied[key] = plan.spent
        self.budget -= plan.spent
        seen, modules = self.modules_seen, self.result.modules
        for sub, child in plan.children:
            if id(child) not in seen:
                seen.add(id(child))
                modules.append((sub, child))
        add = self.add
        for member in plan.members:
            add(*member)

    def _visit_module_slowly(self, name: str, expr: str, module) -> None:
        """The module walk step by step, stopping where the budget runs out."""
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


# ------------------------------------------------------------------------------------ module plans
@dataclass(eq=False)
class _ModulePlan:
    """What walking one module under one name does, whatever walk it is part of: the modules
    it reaches (``children``: ``(path, module)`` in ``named_modules`` order, to be listed if
    not seen yet), the tensors it adds (``members``: :meth:`_Walk.add`'s arguments, parameters
    then buffers) and the visits that cost (``spent``). ``inputs`` holds every object it was
    read from (each module's three dicts, their keys and values) and ``ids``/``types`` what they
    were, so that :func:`_module_plan` can tell in one comparison that nothing changed."""

    children: list
    entered: list  # the modules below the root that were read, in order
    members: list
    spent: int
    inputs: list
    ids: list
    types: list


def _plan_inputs(kinds: Kinds, modules) -> list:
    out: list = []
    items = chain.from_iterable
    for m in modules:
        for d in kinds.module_dicts(m):
            out.append(d)
            out.extend(items(dict.items(d)))
    return out


_MODULE_DICTS = ("_parameters", "_buffers", "_modules")


def _engine_plan_inputs(modules) -> list:
    """:func:`_plan_inputs` for ENGINE, in one loop (it runs at every walk of a kept plan)."""
    out: list = []
    items = chain.from_iterable
    for m in modules:
        d = instance_dict(m)
        for key in _MODULE_DICTS:
            x = d.get(key)
            if not isinstance(x, dict):
                x = {}  # as module_dicts reads it: a new object, so the plan is not kept
            out.append(x)
            out.extend(items(dict.items(x)))
    return out


def _make_plan(kinds: Kinds, name: str, expr: str, module) -> _ModulePlan:
    """The module walk with no budget: the tree in ``named_modules`` order, then members."""
    tree: list = []
    children: list = []
    seen: set = set()
    spent = 0

    def subtree(path, mexpr, m, depth):
        nonlocal spent
        if id(m) in seen or depth > MAX_MODULE_DEPTH:
            return
        seen.add(id(m))
        tree.append((path, mexpr, m))
        for child_name, child in dict.items(kinds.module_dicts(m)[2]):
            if isinstance(child_name, str) and kinds.is_module(child):
                spent += 1
                sub = attr_name(path, child_name)
                children.append((sub, child))
                subtree(sub, child_expression(mexpr, child_name), child, depth + 1)

    subtree(name, expr, module, 0)
    members = []
    for key in (0, 1):  # named_parameters, then named_buffers
        for path, mexpr, m in tree:
            for pname, p in dict.items(kinds.module_dicts(m)[key]):
                if isinstance(pname, str) and kinds.is_tensor(p):
                    members.append((attr_name(path, pname), attr_name(mexpr, pname), p,
                                    path or None, key == 0, key == 1))
    spent += len(members)
    inputs = _plan_inputs(kinds, [m for _, _, m in tree])
    return _ModulePlan(children, [m for _, _, m in tree[1:]], members, spent, inputs,
                       list(map(id, inputs)), list(map(type, inputs)))


# id(module) -> (weak reference to it, {(name, expr): _ModulePlan}); only for ENGINE's kinds.
# A plan keeps what it read alive (so no id in ``ids`` is reused while it is kept), never the
# module itself: the entry goes when the module does.
_PLANS: dict = {}
_MAX_PLANNED_MODULES = 512


def _module_plan(kinds: Kinds, name: str, expr: str, module, checked: dict) -> _ModulePlan:
    """The plan of ``module`` walked under ``name``: the one made last time when every dict,
    key and value it was read from is still the same object of the same type, else a new one.
    So a walk of a model that did not change reads each of its modules' dicts once (``checked``:
    what this walk read, for the same model under another name), and builds no name."""
    if kinds is not ENGINE:
        return _make_plan(kinds, name, expr, module)
    entry = _PLANS.get(id(module))
    if entry is not None and entry[0]() is module:
        plan = entry[1].get((name, expr))
        if plan is not None:
            entered = list(map(id, plan.entered))
            read = checked.get(id(module))
            if read is None or read[0] != entered:
                inputs = _engine_plan_inputs([module, *plan.entered])
                read = checked[id(module)] = (entered, list(map(id, inputs)),
                                              list(map(type, inputs)))
            if read[1] == plan.ids and read[2] == plan.types:
                return plan
    plan = _make_plan(kinds, name, expr, module)
    checked[id(module)] = (list(map(id, plan.entered)), plan.ids, plan.types)
    if any(x is module for x in plan.inputs):
        return plan  # it holds itself: a kept plan would keep it alive
    if entry is None or entry[0]() is not module:
        if len(_PLANS) >= _MAX_PLANNED_MODULES:
            _PLANS.clear()
        key = id(module)
        try:
            ref = weakref.ref(module, lambda _r, key=key: _PLANS.pop(key, None))
        except TypeError:
            return plan
        entry = _PLANS[key] = (ref, {})
    entry[1][(name, expr)] = plan
    return plan


def forget_plans() -> None:
    """Drop the kept module plans (tests; a session that ends may call it to free memory)."""
    _PLANS.clear()
