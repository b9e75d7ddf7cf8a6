"""Lint: warnings about common autograd misuse, each with the line it concerns.

- ``accumulated_grads``: ``optimizer.step()`` used a ``.grad`` that still held gradients from
  before the previous step (a forgotten ``zero_grad()``, seed 000's mistake).
- ``nonleaf_grad``: ``.grad`` of a non-leaf read without ``retain_grad()`` (PyTorch's own warning,
  captured while the statement ran).
- ``disconnected_param``: a trained parameter whose ``.grad`` is still None after ``backward()``:
  one an optimizer holds, or one of a module that took part in that backward (some of its
  parameters got a gradient). A module built only to be shown, in no optimizer and not in the
  loss, is not being trained, and stays quiet.
- ``detach_cuts_path``: a ``.detach()`` or ``.data`` whose result flows into the tensor that
  ``backward()`` is called on, when some parameter then got no gradient (static dataflow on the
  AST, confirmed by the runtime check so that detached targets and logging stay quiet).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field

from .. import naming


@dataclass(frozen=True)
class LintWarning:
    """A warning about the script, with its line.

    Attributes
    ----------
    kind : str
        ``accumulated_grads``, ``nonleaf_grad``, ``disconnected_param``, ``detach_cuts_path`` or
        ``python_warning`` (any other warning the script triggered).
    line : int or None
    message : str
    subject : str or None
        The tensor or parameter concerned.
    related_lines : tuple of int
        Other lines involved (the ``.detach()`` that cut the path, the backward call...).
    """

    kind: str
    line: int | None
    message: str
    subject: str | None = None
    related_lines: tuple = ()


# -- static check: .detach() / .data flowing into a backward() receiver ----------------------------

@dataclass(frozen=True)
class PathCut:
    """A ``.detach()`` or ``.data`` at ``line`` whose value reaches a ``backward()`` receiver."""

    line: int
    col: int
    what: str  # ".detach()" or ".data"
    backward_line: int


def _direct_cut(expr: ast.AST) -> ast.AST | None:
    """The first ``.detach()`` call or ``.data`` read inside ``expr``."""
    for node in ast.walk(expr):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("detach", "detach_")):
            return node
        if (isinstance(node, ast.Attribute) and node.attr == "data"
                and isinstance(node.ctx, ast.Load)):
            return node
    return None


def _what(node: ast.AST) -> str:
    return ".data" if isinstance(node, ast.Attribute) else ".detach()"


class _Flow:
    """Which names of one scope hold a value computed through a cut, and where that cut was."""

    def __init__(self, body: list, cutting_calls: dict) -> None:
        self.cut: dict[str, ast.AST] = {}
        self.cutting_calls = cutting_calls
        self.body = body

    def origin(self, expr: ast.AST | None) -> ast.AST | None:
        if expr is None:
            return None
        direct = _direct_cut(expr)
        if direct is not None:
            return direct
        for node in ast.walk(expr):
            if (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
                    and node.id in self.cut):
                return self.cut[node.id]
            if isinstance(node, ast.Call):
                callee = node.func
                key = (callee.attr if isinstance(callee, ast.Attribute)
                       else getattr(callee, "id", None))
                if key in self.cutting_calls:
                    return self.cutting_calls[key]
        return None

    def run(self) -> None:
        # Loops feed later assignments back into earlier ones: iterate to a fixed point.
        for _ in range(10):
            before = len(self.cut)
            for node in _walk_scope(self.body):
                if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                    origin = self.origin(node.value)
                    if isinstance(node, ast.AugAssign) and origin is None:
                        origin = self.origin(ast.Name(node.target.id, ast.Load())) if isinstance(
                            node.target, ast.Name) else None
                    if origin is None:
                        continue
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for target in targets:
                        for name in ast.walk(target):
                            if isinstance(name, ast.Name):
                                self.cut.setdefault(name.id, origin)
            if len(self.cut) == before:
                return


def _walk_scope(body: list):
    """Every node of a scope, not descending into nested functions or classes."""
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        for child in reversed(list(ast.iter_child_nodes(node))):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                      ast.Lambda)):
                stack.append(child)


def find_path_cuts(source: str | ast.AST) -> list[PathCut]:
    """The ``.detach()``/``.data`` uses whose value flows into a ``backward()`` receiver."""
    tree = ast.parse(source) if isinstance(source, str) else source
    functions = [n for n in ast.walk(tree)
                 if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    classes_with_cut_forward: set[str] = set()
    cutting: dict[str, ast.AST] = {}
    for _ in range(5):  # a cutting function makes its callers cutting: iterate a few rounds
        changed = False
        for fn in functions:
            flow = _Flow(fn.body, cutting)
            flow.run()
            for node in _walk_scope(fn.body):
                if isinstance(node, ast.Return):
                    origin = flow.origin(node.value)
                    if origin is not None and fn.name not in cutting:
                        cutting[fn.name] = origin
                        changed = True
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            if any(isinstance(f, ast.FunctionDef) and f.name == "forward" and f.name in cutting
                   for f in cls.body) and cls.name not in classes_with_cut_forward:
                classes_with_cut_forward.add(cls.name)
                cutting[cls.name] = cutting["forward"]
                changed = True
        if not changed:
            break
    out: list[PathCut] = []
    scopes = [tree.body] + [fn.body for fn in functions]
    for body in scopes:
        flow = _Flow(body, dict(cutting))
        # Instances of a class whose forward cuts: calling them cuts too.
        for node in _walk_scope(body):
            if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                    and isinstance(node.value.func, ast.Name)
                    and node.value.func.id in classes_with_cut_forward):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        flow.cutting_calls[target.id] = cutting[node.value.func.id]
        flow.run()
        for node in _walk_scope(body):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "backward"):
                origin = flow.origin(node.func.value)
                if origin is not None:
                    out.append(PathCut(origin.lineno, origin.col_offset, _what(origin),
                                       node.lineno))
    unique = {(c.line, c.col): c for c in out}
    return sorted(unique.values(), key=lambda c: (c.line, c.col))


def _nonleaf_grad_read(stmt: ast.AST | None, names: Mapping) -> str | None:
    """The dotted name ``x`` of a non-leaf tensor whose ``x.grad`` the statement reads."""
    from ..tensor import Tensor

    for node in ast.walk(stmt) if stmt is not None else ():
        if isinstance(node, ast.Attribute) and node.attr == "grad":
            text = ast.unparse(node.value)
            head, *rest = text.split(".")
            value = names.get(head)
            for attr in rest:
                value = getattr(value, attr, None) if attr.isidentifier() else None
            if isinstance(value, Tensor) and value.grad_fn is not None and not value.retains_grad:
                return text
    return None


# -- runtime checks --------------------------------------------------------------------------------

_NONLEAF_GRAD = "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed"


@dataclass
class _Buffer:
    """What a parameter's .grad holds since it was last cleared."""

    backwards: int = 0
    used_by_step: bool = False  # a step() already consumed the gradients now in the buffer
    mixed: bool = False  # holds gradients from before that step plus newer ones


@dataclass
class Linter:
    """Runtime lint, fed by the session with engine events and captured Python warnings.

    Each warning is reported once per (kind, line, subject) -- ``accumulated_grads`` once per
    line -- so a training loop does not repeat the same warning on every iteration.
    """

    path_cuts: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    _seen: set = field(default_factory=set)
    _buffers: dict = field(default_factory=dict)

    @classmethod
    def for_source(cls, source: str) -> "Linter":
        try:
            cuts = find_path_cuts(source)
        except SyntaxError:
            cuts = []
        return cls(path_cuts=cuts)

    def _add(self, warning: LintWarning, key: tuple | None = None) -> LintWarning | None:
        key = key or (warning.kind, warning.line, warning.subject)
        if key in self._seen:
            return None
        self._seen.add(key)
        self.warnings.append(warning)
        return warning

    # -- gradient buffers ----------------------------------------------------------------------
    def grad_accumulated(self, tensor) -> None:
        buf = self._buffers.setdefault(id(tensor), _Buffer())
        buf.backwards += 1
        if buf.used_by_step:
            buf.mixed = True

    def grad_zeroed(self, tensor) -> None:
        self._buffers.pop(id(tensor), None)

    @property
    def tracking(self) -> bool:
        """True while some gradient buffer is being followed (``sync`` has work to do)."""
        return bool(self._buffers)

    def sync(self, params: Mapping) -> None:
        """Forget buffers the script cleared by hand (``p.grad = None``, ``p.grad.zero_()``)."""
        for t in params.values():
            if t._grad is None or not t._grad._data.any():
                self._buffers.pop(id(t), None)

    def param_updated(self, tensor, name: str | None, line: int | None) -> LintWarning | None:
        buf = self._buffers.get(id(tensor))
        if buf is None:
            return None
        warning = None
        if buf.mixed:
            who = name or "a parameter"
            warning = self._add(LintWarning(
                "accumulated_grads", line,
                f"optimizer.step() used {who}.grad holding the sum of {buf.backwards} backward() "
                "calls since the last zero_grad(): gradients from earlier iterations are still in "
                "the buffer. Call optimizer.zero_grad() before loss.backward() in every iteration.",
                name,
            ), key=("accumulated_grads", line))  # one warning per step() line, not per parameter
        buf.used_by_step = True
        return warning

    # -- warnings the script triggered -------------------------------------------------------------
    def python_warning(self, message: str, line: int | None, stmt: ast.AST | None = None,
                       names: Mapping | None = None) -> LintWarning | None:
        """A warning the statement on ``line`` triggered (``stmt`` and ``names`` name the tensor
        whose ``.grad`` was read)."""
        if message.startswith(_NONLEAF_GRAD):
            who = _nonleaf_grad_read(stmt, names or {})
            tensor = f"the non-leaf tensor {who}" if who else "a non-leaf tensor"
            return self._add(LintWarning(
                "nonleaf_grad", line,
                f"Reading .grad of {tensor}: it stays None because autograd only keeps the "
                "gradients of leaves. Call .retain_grad() on it before backward(), or read the "
                f"leaf's .grad instead. (PyTorch's warning: {message.split('. ')[0]}.)",
                who,
            ))
        first = message.splitlines()[0] if message else "(a warning without a message)"
        return self._add(LintWarning("python_warning", line, first))

    # -- after a backward pass --------------------------------------------------------------------
    def backward_finished(self, names: Mapping, line: int | None) -> list[LintWarning]:
        """Parameters whose .grad is still None: disconnected from the loss."""
        walked = naming.walk(names)
        params = trained_parameters(walked)
        cuts = [c for c in self.path_cuts if line is None or c.backward_line == line]
        if cuts:
            # With a cut on the path, a plain leaf that requires grad is likely meant to learn too
            # (a module's parameters are decided above).
            for e in walked.tensors:
                t = e.tensor
                if not e.parameter and t.grad_fn is None and t.requires_grad:
                    params.setdefault(e.name, t)
        out = []
        for name, t in params.items():
            if t._grad is not None or not t.requires_grad:
                continue
            related = tuple(c.line for c in cuts)
            where = (f" The {cuts[0].what} on line {cuts[0].line} cuts the path to the loss."
                     if cuts else "")
            w = self._add(LintWarning(
                "disconnected_param", line,
                f"{name}.grad is still None after backward(): {name} is disconnected from the "
                f"loss, so it will not learn.{where}",
                name, related,
            ))
            if w is not None:
                out.append(w)
            for cut in cuts:
                w = self._add(LintWarning(
                    "detach_cuts_path", cut.line,
                    f"{cut.what} cuts the path from the parameters to the loss: no gradient flows "
                    f"back through it (the backward() on line {cut.backward_line} leaves "
                    f"{name}.grad None). Remove it if gradients should flow.",
                    None, (cut.backward_line,),
                ))
                if w is not None:
                    out.append(w)
        return out


def trained_parameters(walked) -> dict:
    """Display name -> parameter, of the parameters a backward is meant to train: those an
    optimizer holds, and those of a top-level module some of whose parameters hold a gradient
    (it took part in the loss). A module that is in no optimizer and got no gradient at all is
    only being shown (a demo layer printed before the real model is trained)."""
    held = {id(p) for entry in walked.optimizers
            for group in walked.param_groups(entry.optimizer) for p in naming.group_params(group)}
    roots = _module_roots(walked)
    in_play = {roots[e.group] for e in walked.tensors
               if e.parameter and e.group in roots and e.tensor._grad is not None}
    return {e.name: e.tensor for e in walked.tensors if e.parameter and (
        id(e.tensor) in held or (e.group in roots and roots[e.group] in in_play))}


def _module_roots(walked) -> dict:
    """Module name -> the name of the top-level module it belongs to (``model.fc1`` -> ``model``);
    the walk reaches a module before its children."""
    roots: dict = {}
    for name, _module in walked.modules:
        parent = name.rpartition(".")[0]
        while parent and parent not in roots:
            parent = parent.rpartition(".")[0]
        roots[name] = roots[parent] if parent else name
    return roots
