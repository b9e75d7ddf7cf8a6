"""Scaffolds: add an optimizer, and wrap a script's forward pass in a training loop.

An optimizer's hyper-parameters are typed text: they are read as literals only (nothing typed
runs) and then checked by constructing the engine's optimizer on dummy leaves, so a refusal is
PyTorch's own message (``Invalid learning rate: -1.0``).

The training loop moves the user's statements by their source lines, so their text and the
comments directly above them move verbatim. Which statements move is found from the names each
module-level statement reads and writes (see ``plan_training_loop``).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from .. import creation, optim
from ..events import hub
from .edits import BuildError, CodeEdit, FieldRefused, append_statement, torch_import
from .names import form_start_errors, name_problem

# -- optimizers -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class HyperParam:
    """One constructor argument: its name, PyTorch 2.x's default, kind (float/pair/bool), help."""

    name: str
    default: object
    kind: str
    help: str


def _lr(default):
    return HyperParam("lr", default, "float", "learning rate: the size of each step")


_WEIGHT_DECAY = HyperParam("weight_decay", 0, "float", "L2 penalty added to the gradient")
_MAXIMIZE = HyperParam("maximize", False, "bool", "climb the objective instead of descending")
_EPS8 = HyperParam("eps", 1e-8, "float", "added to the denominator for numerical stability")
_ADAM = (
    _lr(1e-3),
    HyperParam("betas", (0.9, 0.999), "pair", "decay rates of the gradient's running mean and "
               "of its square"),
    _EPS8,
    _WEIGHT_DECAY,
    HyperParam("amsgrad", False, "bool", "keep the maximum of the squared-gradient average"),
    _MAXIMIZE,
)

# Each kind's arguments in the constructor's order, with the defaults of the engine's (and
# PyTorch's) constructors: tests compare them with both signatures.
OPTIMIZER_KINDS: dict[str, tuple[HyperParam, ...]] = {
    "SGD": (
        _lr(1e-3),
        HyperParam("momentum", 0, "float", "fraction of the previous step added to this one"),
        HyperParam("dampening", 0, "float", "how much of the gradient the momentum skips"),
        _WEIGHT_DECAY,
        HyperParam("nesterov", False, "bool", "Nesterov momentum (needs momentum > 0 and no "
                   "dampening)"),
        _MAXIMIZE,
    ),
    "Adam": _ADAM,
    "AdamW": tuple(HyperParam("weight_decay", 1e-2, "float", "decoupled weight decay")
                   if p.name == "weight_decay" else p for p in _ADAM),
    "RMSprop": (
        _lr(1e-2),
        HyperParam("alpha", 0.99, "float", "decay rate of the squared-gradient average"),
        _EPS8,
        _WEIGHT_DECAY,
        HyperParam("momentum", 0, "float", "momentum factor"),
        HyperParam("centered", False, "bool", "normalise by the gradient's estimated variance"),
        _MAXIMIZE,
    ),
    "Adagrad": (
        _lr(1e-2),
        HyperParam("lr_decay", 0, "float", "learning-rate decay per step"),
        _WEIGHT_DECAY,
        HyperParam("initial_accumulator_value", 0, "float", "starting sum of squared gradients"),
        HyperParam("eps", 1e-10, "float", "added to the denominator for numerical stability"),
        _MAXIMIZE,
    ),
}


@dataclass
class OptimizerForm:
    name: str = "optimizer"
    kind: str = "SGD"
    params: tuple = ()  # tensor names, or module names meaning <module>.parameters()
    hyper: dict = field(default_factory=dict)  # hyper-parameter name -> text as typed


def parse_hyper(text: str, param: HyperParam):
    """The value ``text`` spells for ``param`` (a literal only), or None for empty text."""
    text = str(text).strip()
    if not text:
        return None
    if param.kind == "bool" and text.lower() in ("true", "false"):
        return text.lower() == "true"
    if "#" in text:
        raise FieldRefused("remove the comment (# ...)")
    try:
        node = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
        raise FieldRefused(f"not a value: {getattr(e, 'msg', e)}") from None
    if param.kind == "bool":
        if isinstance(node, ast.Constant) and isinstance(node.value, bool):
            return node.value
        raise FieldRefused("write True or False")
    if param.kind == "pair":
        if isinstance(node, (ast.Tuple, ast.List)) and len(node.elts) == 2:
            return tuple(_number(e) for e in node.elts)
        raise FieldRefused(f"write two numbers, e.g. {param.default[0]}, {param.default[1]}")
    return _number(node)


def _number(node):
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign = -1 if isinstance(node.op, ast.USub) else 1
        node = node.operand
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):
        return sign * node.value
    raise FieldRefused("write a number, e.g. 0.01")


def _hyper_text(text: str, param: HyperParam, value) -> str:
    """How a (valid, non-default) value is written: as typed, a pair in parentheses."""
    if param.kind == "bool":
        return repr(value)
    if param.kind == "pair":
        node = ast.parse(text.strip(), mode="eval").body
        first, second = (ast.get_source_segment(text.strip(), e) for e in node.elts)
        return f"({first}, {second})"
    return text.strip()


def _typed_values(form: OptimizerForm, errors: dict) -> dict:
    """name -> (text, value) of the hyper-parameters typed with a non-default value."""
    known = {p.name: p for p in OPTIMIZER_KINDS[form.kind]}
    typed = {}
    for name, text in form.hyper.items():
        param = known.get(name)
        if param is None:
            errors[name] = f"{form.kind} has no option '{name}'"
            continue
        try:
            value = parse_hyper(text, param)
        except FieldRefused as e:
            errors[name] = str(e)
            continue
        if value is not None and value != param.default:
            typed[name] = (str(text), value)
    # in the constructor's order, so the first argument PyTorch refuses is the one blamed
    order = [p.name for p in OPTIMIZER_KINDS[form.kind]]
    return {name: typed[name] for name in order if name in typed}


def _constructor_problem(kind: str, typed: dict) -> tuple[str, str] | None:
    """(field, PyTorch's message) for the first typed value the optimizer refuses, or None.

    Values are added one at a time, so a refusal that needs two of them (Nesterov without
    momentum) blames the later one, the one the user just set.
    """
    cls = getattr(optim, kind)
    kwargs = {}
    for name, (_, value) in typed.items():
        kwargs[name] = value
        try:
            with hub.muted():
                cls([creation.zeros(1, requires_grad=True)], **kwargs)
        except (ValueError, TypeError) as e:
            return name, str(e)
    return None


def _in_module(name: str, module: str) -> bool:
    """``model.fc.weight`` and ``model[0].weight`` are reached through ``model``."""
    return name.startswith((module + ".", module + "["))


def _module_tensors(module: str, workspace) -> list[str]:
    return [n for n in workspace.tensors if _in_module(n, module)]


def _params_problem(params, workspace) -> str | None:
    if not params:
        return "optimizer got an empty parameter list: choose the tensors (or a module) to train"
    seen = set()
    modules = [p for p in params if p in workspace.modules]
    for name in params:
        if name in seen:
            return f"'{name}' is listed twice"
        seen.add(name)
        if name in workspace.modules:
            if not _module_tensors(name, workspace):
                return (f"optimizer got an empty parameter list: {name} "
                        f"({workspace.modules[name]}) has no parameters")
            continue
        info = workspace.tensors.get(name)
        if info is None:
            return f"no tensor or module named '{name}' in the script"
        owner = next((m for m in modules if _in_module(name, m)), None)
        if owner is not None:
            return f"{name} is already among {owner}.parameters()"
        if not info.is_leaf:
            return (f"can't optimize a non-leaf Tensor: {name} is computed ({info.grad_fn}); "
                    "choose the leaves it comes from")
        if not info.requires_grad:
            return (f"{name} does not require grad, so it never gets a gradient to step with: "
                    "create it with requires_grad=True")
    return None


def optimizer_form_errors(form: OptimizerForm, workspace) -> dict[str, str]:
    """Field (``name``, ``kind``, ``params`` or a hyper-parameter) -> reason."""
    errors = form_start_errors(form.name, workspace, "kind", form.kind, OPTIMIZER_KINDS,
                               "optimizer")
    if "kind" in errors:
        return errors
    problem = _params_problem(tuple(form.params), workspace)
    if problem:
        errors["params"] = problem
    typed = _typed_values(form, errors)
    refused = _constructor_problem(form.kind, typed)
    if refused:
        errors.setdefault(refused[0], refused[1])
    return errors


def _expression(name: str) -> str:
    """A tensor's name as Python: ``model.0.weight`` (a module path) -> ``model[0].weight``;
    names already spelt as Python are unchanged."""
    return re.sub(r"\.(\d+)(?=\.|$)", r"[\1]", name)


def optimizer_statement(form: OptimizerForm, source: str, workspace) -> str:
    """The line the form writes: ``optimizer = torch.optim.SGD([w, b], lr=0.1)``."""
    torch = torch_import(source)[0]
    params = list(form.params)
    modules = [p for p in params if p in workspace.modules]
    if len(params) == 1 and modules:
        params_text = f"{params[0]}.parameters()"
    else:  # a module among tensors contributes all its parameters: [*model.parameters(), w]
        params_text = "[" + ", ".join(f"*{p}.parameters()" if p in modules else _expression(p)
                                      for p in params) + "]"
    known = {p.name: p for p in OPTIMIZER_KINDS[form.kind]}
    hyper = [f"{n}={_hyper_text(text, known[n], value)}"
             for n, (text, value) in _typed_values(form, {}).items()]
    return f"{form.name.strip()} = {torch}.optim.{form.kind}({', '.join([params_text, *hyper])})"


def add_optimizer(source: str, workspace, form: OptimizerForm) -> CodeEdit:
    """Append the optimizer's construction (and ``import torch`` if the script lacks it)."""
    errors = optimizer_form_errors(form, workspace)
    order = ["name", "kind", "params", *(p.name for p in OPTIMIZER_KINDS.get(form.kind, ()))]
    for name in [*order, *errors]:
        if name in errors:
            raise BuildError(name, errors[name])
    _, imports = torch_import(source)
    return append_statement(source, optimizer_statement(form, source, workspace), imports=imports)


# -- training loops --------------------------------------------------------------------------------

@dataclass
class LoopForm:
    optimizer: str = "optimizer"
    loss: str = "loss"
    iterations: int = 10
    print_every: int = 0  # 0: print nothing
    variable: str = "iteration"


@dataclass(frozen=True)
class PlanPart:
    """Module-level statements as written: 1-based lines ``start``..``end`` (the comment lines
    directly above included) and their text."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class LoopPlan:
    """Where each module-level statement goes: kept ``before`` the loop, moved into its ``body``,
    moved ``after`` it (statements that read what the loop computes), or ``absorbed`` (the
    script's own ``loss.backward()``, ``optimizer.zero_grad()``, ``optimizer.step()``, which
    the loop writes itself). ``loop`` is the loop's text."""

    before: list
    body: list
    after: list
    absorbed: list
    loop: str


@dataclass
class _Unit:
    """Module-level statements sharing lines (``a = 1; b = 2`` is one unit), with the names they
    read and write. ``kills``: names they surely rebind (a plain assignment), which ends the
    search for earlier definitions."""

    stmts: list
    start: int  # first line, comments above included
    first: int  # the first statement's own first line
    end: int
    reads: set
    writes: set
    kills: set


class _Effects(ast.NodeVisitor):
    """Names a statement reads and writes at module level. Reads are over-approximated (any
    name loaded anywhere inside, functions and comprehensions included); an attribute or item
    assignment (``model.w = ...``, ``xs[0] = ...``) writes the root name without rebinding it."""

    def __init__(self) -> None:
        self.reads: set = set()
        self.writes: set = set()

    def visit_Name(self, node: ast.Name) -> None:
        (self.reads if isinstance(node.ctx, ast.Load) else self.writes).add(node.id)

    def _store_root(self, node) -> None:
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            root = _root_name(node)
            if root:
                self.writes.add(root)
        self.generic_visit(node)

    visit_Attribute = visit_Subscript = _store_root

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Name):
            self.reads.add(node.target.id)
        self.generic_visit(node)

    def visit_Import(self, node) -> None:
        for alias in node.names:
            self.writes.add(alias.asname or alias.name.split(".")[0])

    def visit_ImportFrom(self, node) -> None:
        for alias in node.names:
            self.writes.add(alias.asname or alias.name)

    def _scope(self, node) -> None:
        # a nested scope's own names are not the module's: only what it loads counts
        if hasattr(node, "name"):
            self.writes.add(node.name)
        for inner in ast.walk(node):
            if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Load):
                self.reads.add(inner.id)

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = _scope
    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _scope


def _root_name(node) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _kills(stmt) -> set:
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return _effects_of(stmt)[1]
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    targets = stmt.targets if isinstance(stmt, ast.Assign) else \
        [stmt.target] if isinstance(stmt, ast.AnnAssign) and stmt.value is not None else []
    names = set()
    for target in targets:
        stack = [target]
        while stack:
            t = stack.pop()
            if isinstance(t, ast.Name):
                names.add(t.id)
            elif isinstance(t, (ast.Tuple, ast.List)):
                stack.extend(t.elts)
            elif isinstance(t, ast.Starred):
                stack.append(t.value)
    return names


def _effects_of(stmt) -> tuple[set, set]:
    effects = _Effects()
    effects.visit(stmt)
    return effects.reads, effects.writes


def _units(tree: ast.Module, lines: list[str]) -> list[_Unit]:
    units: list[_Unit] = []
    for stmt in tree.body:
        first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])
        reads, writes = _effects_of(stmt)
        if units and first <= units[-1].end:  # shares a line with the previous statement
            unit = units[-1]
            unit.stmts.append(stmt)
            unit.end = max(unit.end, stmt.end_lineno)
            unit.reads |= reads
            unit.writes |= writes
            unit.kills |= _kills(stmt)
            continue
        start = first
        floor = units[-1].end if units else 0
        while start - 1 > floor and lines[start - 2].lstrip().startswith("#"):
            start -= 1  # comment lines directly above travel with the statement
        units.append(_Unit([stmt], start, first, stmt.end_lineno, reads, writes, _kills(stmt)))
    return units


def _method_call(stmt) -> tuple[str, str] | None:
    """(receiver name, method) when the statement is ``name.method(...)``."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return None
    func = stmt.value.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.value.id, func.attr
    return None


def _calls_method_on(unit: _Unit, names: set) -> bool:
    """``h.retain_grad()``, ``h.register_hook(...)``: a statement calling a method of a name."""
    if len(unit.stmts) != 1 or not isinstance(unit.stmts[0], ast.Expr):
        return False
    call = unit.stmts[0].value
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) \
        and _root_name(call.func) in names


def _reads_grad(unit: _Unit) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == "grad"
               for stmt in unit.stmts for n in ast.walk(stmt))


def _loop_calling(tree: ast.Module, optimizer: str):
    """The module-level for/while loop that already calls ``optimizer.step()``, or None."""
    for stmt in tree.body:
        if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
            for node in ast.walk(stmt):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and node.func.attr == "step" and isinstance(node.func.value, ast.Name) \
                        and node.func.value.id == optimizer:
                    return stmt
    return None


_ABSORBED = (("optimizer", "zero_grad"), ("loss", "backward"), ("optimizer", "step"))


@dataclass
class _Analysis:
    units: list
    roles: list  # per unit: before | body | after | absorbed
    absorbed: dict  # method -> first unit index absorbed for it
    roots: set
    unused: list  # optimizer parameters the loss does not read


def _param_roots(units, workspace, optimizer: str) -> tuple[set, list]:
    """The names the optimizer's parameters are reached by (``w``, ``model``), and for each
    parameter its root name."""
    info = workspace.optimizers[optimizer]
    per_param = [(p, m.group(0)) for p in info.params if (m := re.match(r"[A-Za-z_]\w*", p))]
    roots = {root for _, root in per_param}
    # the names in the construction's params argument count too (``SGD(params)`` after
    # ``params = [w, b]`` also reaches w and b)
    for unit in units:
        for stmt in unit.stmts:
            if optimizer in _kills(stmt) and isinstance(getattr(stmt, "value", None), ast.Call):
                call = stmt.value
                args = call.args[:1] + [k.value for k in call.keywords if k.arg == "params"]
                roots |= {n.id for a in args for n in ast.walk(a) if isinstance(n, ast.Name)}
    for unit in units:
        if unit.kills & roots and all(isinstance(getattr(s, "value", None), (ast.List, ast.Tuple))
                                      for s in unit.stmts):
            roots |= unit.reads
    return roots, per_param


def _analyse(source: str, workspace, form: LoopForm):
    """The statements' roles, or (field, reason) when the loop cannot be written."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as e:
        return "source", f"the script does not parse: {getattr(e, 'msg', e)}"
    lines = source.splitlines()
    units = _units(tree, lines)
    loss, opt = form.loss, form.optimizer
    writers = [i for i, u in enumerate(units) if loss in u.writes]
    if not writers:
        return "loss", f"{loss} is not assigned at the top level of the script"
    loss_at = writers[-1]
    roots, per_param = _param_roots(units, workspace, opt)

    roles = ["before"] * len(units)
    absorbed: dict = {}  # method -> the first single-statement unit calling it (its text is reused)
    scaffolding = {(loss if owner == "loss" else opt, method) for owner, method in _ABSORBED}
    for i, unit in enumerate(units):
        calls = [_method_call(stmt) for stmt in unit.stmts]
        if all(call in scaffolding for call in calls):
            roles[i] = "absorbed"
            if len(calls) == 1:
                absorbed.setdefault(calls[0][1], i)

    # backward slice: the statements whose results the loss reads; parameters' own definitions
    # (and in-place initialisations of them) stay before the loop
    needed = set(units[loss_at].reads)
    in_slice = {loss_at}
    for i in range(loss_at - 1, -1, -1):
        unit = units[i]
        hit = unit.writes & needed
        if roles[i] == "absorbed" or not hit or hit <= roots:
            continue
        in_slice.add(i)
        needed -= unit.kills - unit.reads
        needed |= unit.reads
    # of those, the ones computed from the parameters are the forward pass the loop repeats
    tainted = set(roots)
    for i in sorted(in_slice):
        if units[i].reads & tainted:
            roles[i] = "body"
            tainted |= units[i].writes
    computed = set().union(*(units[i].writes for i, r in enumerate(roles) if r == "body"))
    for i in range(loss_at):
        if roles[i] == "before" and _calls_method_on(units[i], computed):
            roles[i] = "body"  # h.retain_grad(), h.register_hook(...)

    # after the loop: what reads the loop's results (and, transitively, what reads those);
    # also calls reading the parameters or a .grad after the script's own backward/step
    updated_from = min([absorbed[m] for m in ("backward", "step") if m in absorbed
                        and absorbed[m] > loss_at], default=len(units))
    later = set()
    for i, unit in enumerate(units):
        if roles[i] != "before" or opt in unit.writes:
            continue
        if unit.reads & (computed | later) or (
                i > updated_from and not unit.writes and (unit.reads & roots or _reads_grad(unit))):
            roles[i] = "after"
            later |= unit.writes
    used = set().union(*(units[i].reads for i, r in enumerate(roles) if r == "body"))
    unused = [p for p, root in per_param if root not in used]
    return _Analysis(units, roles, absorbed, roots, unused)


def loop_form_errors(form: LoopForm, workspace, source: str) -> dict[str, str]:
    """Field (``optimizer``, ``loss``, ``iterations``, ``print_every``, ``variable``) -> reason."""
    errors: dict[str, str] = {}
    if type(form.iterations) is not int or form.iterations < 1:
        errors["iterations"] = "repeat at least 1 iteration"
    if type(form.print_every) is not int or form.print_every < 0:
        errors["print_every"] = "0 (print nothing) or every how many iterations to print"
    problem = name_problem(form.variable.strip(), workspace)
    if problem:
        errors["variable"] = problem
    if form.optimizer not in workspace.optimizers:
        errors["optimizer"] = f"no optimizer named '{form.optimizer}' in the script: add one first"
    info = workspace.tensors.get(form.loss)
    if info is None:
        errors["loss"] = f"no tensor named '{form.loss}' in the script"
    elif info.shape != ():
        # PyTorch's message when backward() is called on a non-scalar
        errors["loss"] = (f"grad can be implicitly created only for scalar outputs: {form.loss} is "
                          f"{info.label}; reduce it with .sum() or .mean()")
    elif info.grad_fn is None:
        errors["loss"] = ("element 0 of tensors does not require grad and does not have a grad_fn: "
                          f"{form.loss} is not computed from tensors that require grad")
    if "optimizer" in errors or "loss" in errors:
        return errors
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as e:
        errors["loss"] = f"the script does not parse: {getattr(e, 'msg', e)}"
        return errors
    loop = _loop_calling(tree, form.optimizer)
    if loop is not None:
        errors["optimizer"] = (f"{form.optimizer}.step() already runs in the loop at line "
                               f"{loop.lineno}")
        return errors
    analysis = _analyse(source, workspace, form)
    if isinstance(analysis, tuple):
        errors[analysis[0]] = analysis[1]
        return errors
    params = workspace.optimizers[form.optimizer].params
    if "body" not in analysis.roles:
        which = ", ".join(params) or "its parameters"
        errors["loss"] = (f"{form.loss} does not depend on {which} (the parameters of "
                          f"{form.optimizer}): the loop would change nothing")
        return errors
    problem = _reordering_problem(analysis)
    if problem:
        errors["loss"] = problem
    return errors


def _reordering_problem(analysis: _Analysis) -> str | None:
    """A statement kept before the loop that rebinds a name a moved statement above it read:
    moving would change what that statement sees."""
    units, roles = analysis.units, analysis.roles
    for i, unit in enumerate(units):
        if roles[i] != "before":
            continue
        for j in range(i):
            if roles[j] == "body" and unit.writes & units[j].reads:
                name = sorted(unit.writes & units[j].reads)[0]
                return (f"line {units[i].first} changes {name} between the statements the loop "
                        "would repeat: move it above them first")
    return None


def _protected_lines(units) -> set:
    """Lines inside a multi-line string: indenting them would change the string."""
    lines = set()
    for unit in units:
        for stmt in unit.stmts:
            for node in ast.walk(stmt):
                if isinstance(node, (ast.Constant, ast.JoinedStr)) and \
                        getattr(node, "end_lineno", node.lineno) > node.lineno:
                    lines.update(range(node.lineno + 1, node.end_lineno + 1))
    return lines


def _part(unit: _Unit, lines: list[str]) -> PlanPart:
    return PlanPart(unit.start, unit.end, "\n".join(lines[unit.start - 1:unit.end]))


def _loop_text(form: LoopForm, analysis: _Analysis, lines: list[str]) -> str:
    units, roles = analysis.units, analysis.roles
    protected = _protected_lines(units)

    def indented(unit: _Unit, depth: int = 1) -> list[str]:
        pad = "    " * depth
        return [text if not text.strip() or n in protected else pad + text
                for n, text in enumerate(lines[unit.start - 1:unit.end], unit.start)]

    def scaffold(method: str, owner: str) -> list[str]:
        # the script's own call (its arguments and comments) when it has one
        at = analysis.absorbed.get(method)
        if at is not None:
            return indented(units[at])
        return [f"    {owner}.{method}()"]

    out = [f"for {form.variable.strip()} in range({form.iterations}):"]
    out += scaffold("zero_grad", form.optimizer)
    for i, unit in enumerate(units):
        if roles[i] == "body":
            out += indented(unit)
    out += scaffold("backward", form.loss)
    out += scaffold("step", form.optimizer)
    report = f"print({form.variable.strip()}, {form.loss}.item())"
    if form.print_every == 1:
        out.append(f"    {report}")
    elif form.print_every > 1:
        out.append(f"    if {form.variable.strip()} % {form.print_every} == 0:")
        out.append(f"        {report}")
    return "\n".join(out)


def _checked_analysis(source: str, workspace, form: LoopForm) -> _Analysis:
    errors = loop_form_errors(form, workspace, source)
    for name in ("optimizer", "loss", "iterations", "print_every", "variable", *errors):
        if name in errors:
            raise BuildError(name, errors[name])
    return _analyse(source, workspace, form)


def _plan_of(analysis: _Analysis, form: LoopForm, lines: list[str]) -> LoopPlan:
    parts = {role: [_part(u, lines) for u, r in zip(analysis.units, analysis.roles) if r == role]
             for role in ("before", "body", "after", "absorbed")}
    return LoopPlan(parts["before"], parts["body"], parts["after"], parts["absorbed"],
                    _loop_text(form, analysis, lines))


def plan_training_loop(source: str, workspace, form: LoopForm) -> LoopPlan:
    """Which statements stay before the loop, move into it, go after it, or are absorbed.

    The body is the backward slice of the loss's last assignment (the statements whose results
    it reads, transitively) restricted to those computed from the optimizer's parameters, plus
    calls like ``h.retain_grad()`` on what they compute; original order is kept throughout.
    Raises ``BuildError`` when the loop cannot be written.
    """
    return _plan_of(_checked_analysis(source, workspace, form), form, source.splitlines())


def wrap_in_training_loop(source: str, workspace, form: LoopForm) -> CodeEdit:
    """The script rewritten: what stays before (as it was, blank lines and loose comments
    included), the loop, then what reads its results."""
    analysis = _checked_analysis(source, workspace, form)
    lines = source.splitlines()
    plan = _plan_of(analysis, form, lines)
    moved = {n for u, r in zip(analysis.units, analysis.roles) if r != "before"
             for n in range(u.start, u.end + 1)}
    head: list[str] = []
    last = None  # the original line number of the last line kept
    for n, text in enumerate(lines, 1):
        if n in moved:
            continue
        if not text.strip() and (not head or (not head[-1].strip() and last != n - 1)):
            continue  # a removal must not leave a doubled blank line behind
        head.append(text)
        last = n
    while head and not head[-1].strip():
        head.pop()
    out = head + ([""] if head else [])
    line = len(out) + 1
    out += plan.loop.splitlines()
    if plan.after:
        out += [""] + [text for part in plan.after for text in part.text.splitlines()]
    summary = (f"for {form.variable.strip()} in range({form.iterations}): repeats "
               f"{len(plan.body)} statement{'s' if len(plan.body) != 1 else ''}")
    return CodeEdit("\n".join(out) + "\n", line, summary)
