"""Which ops the selected operands allow, and the line an op writes.

Validity is decided by a dry run: the op's ``run`` is called on engine tensors of zeros with the
operands' shapes, dtypes and ``requires_grad``, with grad enabled and the event hub muted, and
whatever the engine raises (it mirrors PyTorch's messages) becomes the reason. Nothing is
``eval``'d: params are parsed with ``ast.literal_eval`` and the op is called directly.
"""

from __future__ import annotations

import ast
import contextlib
import math
import warnings
from dataclasses import dataclass

import numpy as np

from ..autograd.grad_mode import enable_grad
from ..events import hub
from ..tensor import Tensor
from .catalog import BY_ID, CATALOG, OpSpec, Param
from .edits import BuildError, CodeEdit, append_statement, functional_import, torch_import
from .names import name_problem

_NUMBER_WORDS = {1: "one tensor", 2: "two tensors"}
_KIND_WORDS = {"int": "a whole number", "float": "a number", "bool": "True or False",
               "shape": "a shape like 2, 3", "dims": "dimensions like 1, 0", "choice": "one of"}
_MAX_PARAM_TEXT = 200  # a shape or a number, not a program


@dataclass(frozen=True)
class Verdict:
    """Whether an op can run on the operands, why not, and what its result would be."""

    ok: bool
    reason: str | None = None
    shape: tuple | None = None
    dtype: str | None = None
    requires_grad: bool | None = None
    grad_fn: str | None = None


# -- operands and params -------------------------------------------------------------------------

def _as_op(op) -> OpSpec:
    return op if isinstance(op, OpSpec) else BY_ID[op]


def _is_number(x) -> bool:
    return isinstance(x, (bool, int, float)) and not (isinstance(x, float) and not math.isfinite(x))


def normalize_operands(operands, workspace) -> list:
    """Names stay names; numeric text the workspace does not bind becomes a number."""
    out = []
    for o in operands:
        if isinstance(o, str) and o not in workspace.tensors:
            try:
                value = ast.literal_eval(o.strip()) if len(o) <= _MAX_PARAM_TEXT else o
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                value = o
            o = value if _is_number(value) else o
        out.append(o)
    return out


def operand_problem(op: OpSpec, operands, workspace) -> str | None:
    """Why these operands do not fit the op's arity and kinds (not yet: whether PyTorch accepts)."""
    if len(operands) != op.arity:
        return f"needs {_NUMBER_WORDS[op.arity]} ({len(operands)} selected)"
    tensors = 0
    for o in operands:
        if isinstance(o, str):
            if o not in workspace.tensors:
                return f"no tensor named '{o}' in the script"
            tensors += 1
        elif not _is_number(o):
            return f"{o!r} is neither a tensor nor a number"
        elif not op.scalar_ok:
            return f"{op.title} needs a tensor where {o!r} is given"
    if tensors == 0:
        return "needs at least one tensor"
    return None


def parse_param(param: Param, value):
    """A param's value from the form (text or a Python value); None when not given.

    Raises BuildError(param.name, ...) for a value of the wrong kind.
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, str):
        text = value.strip()
        if param.kind == "choice":
            value = text.strip("'\"")
        elif param.kind == "bool" and text.lower() in ("true", "false"):
            value = text.lower() == "true"
        else:
            try:
                if len(text) > _MAX_PARAM_TEXT:
                    raise ValueError
                value = ast.literal_eval(text)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                raise BuildError(param.name, f"'{text}' is not {_kind_words(param)}") from None
    return _checked(param, value)


def _kind_words(param: Param) -> str:
    if param.kind == "choice":
        return "one of " + ", ".join(map(repr, param.choices))
    return _KIND_WORDS[param.kind]


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _checked(param: Param, value):
    wrong = BuildError(param.name, f"{value!r} is not {_kind_words(param)}")
    kind = param.kind
    if kind == "int":
        if not _is_int(value):
            raise wrong
    elif kind == "float":
        if not (_is_int(value) or isinstance(value, float)) or not _is_number(value):
            raise wrong
    elif kind == "bool":
        if not isinstance(value, bool):
            raise wrong
    elif kind in ("shape", "dims"):
        if _is_int(value):
            value = (value,)
        if not isinstance(value, (tuple, list)) or not all(_is_int(v) for v in value):
            raise wrong
        value = tuple(value)
    elif kind == "choice":
        if value not in param.choices:
            raise wrong
    return value


def resolved_params(op, params, operands, workspace) -> dict:
    """Every param of ``op`` with its value: given ones parsed, missing required ones defaulted
    (``permute``'s dims to the reversed order of the operand's), missing optional ones left out."""
    op = _as_op(op)
    params = params or {}
    values = {}
    for p in op.params:
        value = parse_param(p, params.get(p.name))
        if value is None:
            if p.optional:
                continue
            value = p.default
            if value is None and p.kind == "dims" and operands and isinstance(operands[0], str) \
                    and operands[0] in workspace.tensors:
                value = tuple(reversed(range(len(workspace.tensors[operands[0]].shape))))
            if value is None:
                raise BuildError(p.name, f"{p.name} is needed")
        values[p.name] = value
    return values


# -- the dry run ---------------------------------------------------------------------------------

class DryTensors:
    """Zero-filled engine tensors standing for the workspace's tensors, made once per palette.

    Each has its tensor's shape, dtype and requires_grad; a non-leaf gets a grad_fn too. Use them
    only inside ``dry_run_context()``.
    """

    def __init__(self, workspace) -> None:
        self.workspace = workspace
        self.made: dict[str, Tensor] = {}

    def get(self, operand):
        if not isinstance(operand, str):
            return operand
        t = self.made.get(operand)
        if t is None:
            info = self.workspace.tensors[operand]
            t = Tensor._wrap(_zeros_like_layout(info))
            if info.requires_grad and info.is_floating_point:
                t.requires_grad_(True)
                if not info.is_leaf:
                    t = t * 1  # a non-leaf has a grad_fn: views and in-place checks see one too
            self.made[operand] = t
        return t


@contextlib.contextmanager
def dry_run_context():
    """Grad enabled, the event hub muted (no panel sees a dry run) and warnings silenced."""
    with hub.muted(), enable_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a size-mismatch warning is no refusal
        yield


def error_text(e: BaseException) -> str:
    """An exception as the reason shows it: ``RuntimeError: ...``, PyTorch's form."""
    return f"{type(e).__name__}: {e}"


def _zeros_like_layout(info) -> np.ndarray:
    """Zeros of the tensor's shape and dtype, laid out with its strides.

    The layout matters: ``x.t().view(6)`` fails.
    """
    if info.strides is None or not info.shape or 0 in info.shape or any(
            s < 0 for s in info.strides):  # the span below covers non-negative strides only
        return np.zeros(info.shape, dtype=info.dtype)
    span = 1 + sum((n - 1) * s for n, s in zip(info.shape, info.strides))
    base = np.zeros(span, dtype=info.dtype)
    return np.lib.stride_tricks.as_strided(
        base, info.shape, tuple(s * base.itemsize for s in info.strides), writeable=False)


def _dry_run(op: OpSpec, operands, params: dict, dry: DryTensors) -> Verdict:
    with dry_run_context():
        args = [dry.get(o) for o in operands] + [None] * (2 - len(operands))
        try:
            result = op.run(args[0], args[1], **params)
        except Exception as e:
            return Verdict(False, error_text(e))
    return verdict_of(result)


def verdict_of(result) -> Verdict:
    """The verdict of a dry run that returned ``result``: its shape, dtype, flags and node."""
    if not isinstance(result, Tensor):
        return Verdict(True)
    fn = result.grad_fn
    return Verdict(True, None, tuple(result._data.shape), result._data.dtype.name,
                   result.requires_grad, fn.name() if fn is not None else None)


def _check(op: OpSpec, operands, params, workspace, dry: DryTensors) -> Verdict:
    operands = normalize_operands(operands, workspace)
    problem = operand_problem(op, operands, workspace)
    if problem:
        return Verdict(False, problem)
    try:
        values = resolved_params(op, params, operands, workspace)
    except BuildError as e:
        return Verdict(False, str(e))
    key = _verdict_key(op, operands, values, workspace)
    verdict = _VERDICTS.get(key) if key is not None else None
    if verdict is None:
        verdict = _dry_run(op, operands, values, dry)
        if key is not None:
            if len(_VERDICTS) >= _MAX_VERDICTS:
                _VERDICTS.clear()
            _VERDICTS[key] = verdict
    return verdict


# A verdict depends on the operands' layout, not on their names or values: the palette asks
# again after every re-run of the script with the same shapes, and a dry run costs ~0.4 ms.
_VERDICTS: dict = {}
_MAX_VERDICTS = 4096


def _verdict_key(op: OpSpec, operands, values: dict, workspace):
    parts = []
    for operand in operands:
        if isinstance(operand, str):
            info = workspace.tensors[operand]
            parts.append((info.shape, info.dtype, info.requires_grad, info.is_leaf, info.strides))
        else:
            parts.append((type(operand), operand))
    try:
        key = (op.id, tuple(parts), tuple(sorted(values.items())))
        hash(key)
    except TypeError:  # an unhashable parameter value: just run it
        return None
    return key


def check_op(op, operands, params, workspace) -> Verdict:
    """Whether ``op`` (an OpSpec or its id) runs on ``operands`` with ``params``, and its result."""
    return _check(_as_op(op), list(operands), params, workspace, DryTensors(workspace))


def palette(workspace, operands, params=None) -> list:
    """``[(OpSpec, Verdict)]`` for every op in catalog order.

    ``params`` is either one dict shared by all ops (each takes the keys it has: ``dim``...) or
    ``{op_id: {param: value}}``.
    """
    operands = list(operands)
    dry = DryTensors(workspace)
    per_op = bool(params) and all(isinstance(v, dict) for v in params.values()) \
        and all(k in BY_ID for k in params)
    out = []
    for op in CATALOG:
        own = (params or {}).get(op.id) if per_op else params
        out.append((op, _check(op, operands, own, workspace, dry)))
    return out


# -- writing -------------------------------------------------------------------------------------

def _operand_text(o) -> str:
    if isinstance(o, str):
        return o
    text = repr(o)
    return f"({text})" if text.startswith("-") else text  # ``(-2) ** x``, not ``-(2 ** x)``


def _param_text(param: Param, value) -> str:
    if param.kind in ("shape", "dims"):
        return ", ".join(map(str, value)) if value else "()"
    return repr(value)


def op_expression(
    op, operands, params, source, taken=frozenset(), workspace=None
) -> tuple[str, tuple[str, ...]]:
    """``(the expression as the script would spell it, the import lines it needs)``.

    Assumes the operands fit (see ``check_op``); raises BuildError for a bad param. With a
    ``workspace``, missing required params take the defaults the palette checked with
    (``permute``'s reversed order); ``taken`` keeps ``F`` from shadowing a name.
    """
    op = _as_op(op)
    if workspace is not None:
        taken = taken | workspace.taken
        operands = normalize_operands(list(operands), workspace)
        params = {**(params or {}), **resolved_params(op, params, operands, workspace)}
    values: dict = {}
    kw = []
    for p in op.params:
        value = parse_param(p, (params or {}).get(p.name))
        if value is None and not p.optional:
            value = p.default
            if value is None:
                raise BuildError(p.name, f"{p.name} is needed")
        values[p.name] = "" if value is None else _param_text(p, value)
        if p.optional and value is not None and value != p.default:
            kw.append(f"{p.name}={values[p.name]}")
    imports: list[str] = []
    fields = {"kw": ", ".join(kw), "_kw": "".join(", " + k for k in kw)}
    if "{torch}" in op.template:
        fields["torch"], needed = torch_import(source)
        imports += needed
    if "{F}" in op.template:
        fields["F"], needed = functional_import(source, taken)
        imports += [i for i in needed if i not in imports]
    texts = [_operand_text(o) for o in operands] + ["", ""]
    fields["a"], fields["b"] = texts[0], texts[1]
    return op.template.format(**fields, **values), tuple(imports)


def apply_op(source, workspace, op, operands, params, name) -> CodeEdit:
    """Write ``name = <op expression>`` at the end of the script, adding imports it lacks."""
    op = _as_op(op)
    problem = name_problem(name, workspace)
    if problem:
        raise BuildError("name", problem)
    operands = normalize_operands(list(operands), workspace)
    problem = operand_problem(op, operands, workspace)
    if problem:
        raise BuildError("operands", problem)
    values = resolved_params(op, params, operands, workspace)  # raises for a bad param
    verdict = _dry_run(op, operands, values, DryTensors(workspace))
    if not verdict.ok:
        raise BuildError("operands", verdict.reason)
    text, imports = op_expression(op, operands, params, source, workspace=workspace)
    return append_statement(source, f"{name} = {text}", imports=imports)
