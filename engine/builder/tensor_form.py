"""The New Tensor form: check what the user typed, then write ``x = torch.tensor(...)``.

Values are typed text from anyone (a pasted script, a shared file): they are parsed with ``ast``
and only number literals in (nested) lists and tuples are accepted, so nothing typed ever runs.
Where PyTorch would refuse the call (a ragged list, an integer tensor that requires grad, a
random integer tensor), the reason is PyTorch's own message.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass

from .. import creation
from ..dtypes import scalar_type_name
from ..events import hub
from ..script.limits import Limits
from .edits import BuildError, CodeEdit, FieldRefused, append_statement, torch_import
from .names import form_start_errors

MODES = ("values", "zeros", "ones", "rand", "randn", "arange")
DTYPES = ("auto", "float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8",
          "bool")
FIELDS = ("name", "values", "shape", "dtype", "requires_grad")  # the order reasons are reported in

DEFAULT_FLOAT = "float32"
_REQUIRES_GRAD_MESSAGE = "Only Tensors of floating point and complex dtype can require gradients"


@dataclass
class TensorForm:
    name: str = ""
    mode: str = "values"
    values: str = ""
    shape: str = ""
    dtype: str = "auto"
    requires_grad: bool = True


# -- reading the fields ----------------------------------------------------------------------------



def parse_values(text: str):
    """The number, or nested list of numbers, that ``text`` spells; ``FieldRefused`` otherwise.

    Only literals are evaluated, node by node: a stranger's text can never run.
    """
    text = text.strip()
    if not text:
        raise FieldRefused("write a number or a list of numbers, e.g. [[1.0, 2.0], [3.0, 4.0]]")
    if "#" in text:  # a comment would swallow the rest of the written line
        raise FieldRefused("remove the comment (# ...): only the values go here")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as e:
        where = f"column {e.offset}"
        if (e.lineno or 1) > 1:
            where = f"line {e.lineno}, {where}"
        raise FieldRefused(f"not a list of numbers: {e.msg} at {where}") from None
    except (ValueError, RecursionError, MemoryError):
        raise FieldRefused("not a list of numbers (too deeply nested?)") from None
    try:
        return _literal(tree.body)
    except RecursionError:
        raise FieldRefused("the list is too deeply nested") from None


def _literal(node):
    if isinstance(node, ast.List):
        return [_literal(e) for e in node.elts]
    if isinstance(node, ast.Tuple):  # kept a tuple: PyTorch's messages name the type
        return tuple(_literal(e) for e in node.elts)
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign = -1 if isinstance(node.op, ast.USub) else 1
        node = node.operand
        if isinstance(node, ast.Constant) and isinstance(node.value, bool):
            raise FieldRefused(f"write {'-' if sign < 0 else '+'}1 or 0, not a sign before "
                           f"{node.value} (column {node.col_offset})")
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool) and sign == 1:
            return value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return sign * value
        if isinstance(value, complex):
            raise FieldRefused(f"complex numbers are not supported (column {node.col_offset + 1})")
    where = getattr(node, "col_offset", 0) + 1
    raise FieldRefused(f"only numbers, True and False in lists or tuples (column {where}: "
                   f"{type(node).__name__.lower()})")


def _is_bare_tuple(text: str) -> bool:
    """``1, 2, 3`` (a tuple without its parentheses) must be bracketed before it is written."""
    node = ast.parse(text.strip(), mode="eval").body
    return isinstance(node, ast.Tuple) and bool(node.elts) \
        and node.elts[0].col_offset == node.col_offset


def parse_whole_numbers(text: str, example: str) -> tuple[int, ...]:
    """``"2, 3"``, ``"(2, 3)"``, ``"[2,3]"``, ``"(2,)"`` -> the ints; ``""`` -> (). A part that is
    no whole number is ``FieldRefused``, the reason showing ``example`` of what to write."""
    inner = text.strip()
    if inner[:1] + inner[-1:] in ("()", "[]"):
        inner = inner[1:-1].strip()
    if not inner:
        return ()
    parts = [p.strip() for p in inner.split(",")]
    if parts[-1] == "" and len(parts) > 1:  # "(2,)"
        parts.pop()
    numbers = []
    for part in parts:
        try:
            numbers.append(int(part, 10))
        except ValueError:
            what = f"'{part}'" if part else "an empty entry"
            raise FieldRefused(
                f"{what} is not a whole number: write sizes like {example}") from None
    return tuple(numbers)


def parse_shape(text: str) -> tuple[int, ...]:
    """A tensor's shape; ``""`` -> () (a scalar). Negative sizes are returned: each factory
    refuses them in its own words."""
    return parse_whole_numbers(text, "2, 3")


# -- the form ------------------------------------------------------------------------------------

def form_errors(form: TensorForm, workspace) -> dict[str, str]:
    """Field -> why the form cannot be written as it stands (empty when it can)."""
    errors = form_start_errors(form.name, workspace, "mode", form.mode, MODES, "kind")
    if "mode" in errors:
        return errors
    if form.dtype not in DTYPES:
        errors["dtype"] = f"unknown dtype '{form.dtype}': choose one of {', '.join(DTYPES)}"
        return errors
    if form.mode == "values":
        dtype = _values_errors(form, errors)
    else:
        dtype = DEFAULT_FLOAT if form.dtype == "auto" else form.dtype
        _factory_errors(form, dtype, errors)
    if dtype is not None and form.requires_grad and not dtype.startswith("float"):
        hint = ("write 1.0 instead of 1, or choose float32"
                if form.mode == "values" and form.dtype == "auto" else "choose float32")
        errors["requires_grad"] = f"{_REQUIRES_GRAD_MESSAGE}: {hint}"
    return errors


def _values_errors(form: TensorForm, errors: dict) -> str | None:
    """Check the values; the tensor's dtype (as torch.tensor infers it) when they are fine."""
    try:
        data = parse_values(form.values)
    except FieldRefused as e:
        errors["values"] = str(e)
        return None
    explicit = None if form.dtype == "auto" else form.dtype
    inferred = creation._infer_dtype(data).name  # PyTorch's inference: bool < int64 < float32
    # engine.tensor() refuses ragged lists and out-of-range values with PyTorch's messages
    problem = _engine_problem(lambda: creation.tensor(data, dtype=explicit))
    if problem:
        errors["values"] = problem
        return None
    return explicit or inferred


def _factory_errors(form: TensorForm, dtype: str, errors: dict) -> None:
    try:
        shape = parse_shape(form.shape)
    except FieldRefused as e:
        errors["shape"] = str(e)
        return
    if any(s < 0 for s in shape):
        # the engine words each factory's refusal as PyTorch does ("zeros: Dimension size must
        # be non-negative.", "Trying to create tensor with negative dimension -1: [2, -1]");
        # sizes are checked before anything is allocated
        factory = getattr(creation, "ones" if form.mode == "arange" else form.mode)
        errors["shape"] = _engine_problem(lambda: factory(*shape)) or "sizes must not be negative"
        return
    numel = math.prod(shape)
    if numel > Limits().max_tensor_elements:
        errors["shape"] = (f"tensor too large: {numel} elements (the limit is "
                           f"{Limits().max_tensor_elements})")
        return
    scalar_name = scalar_type_name(dtype)  # as "not implemented for 'Long'" spells it
    if form.mode == "arange":
        if not shape:
            errors["shape"] = "arange needs a length: write e.g. 6, or 2, 3 for a 2x3 grid"
        elif dtype == "bool":
            errors["dtype"] = f"\"arange_cpu\" not implemented for '{scalar_name}'"
    elif form.mode in ("rand", "randn") and not dtype.startswith("float"):
        kernel = "check_uniform_bounds" if form.mode == "rand" else "normal_kernel_cpu"
        errors["dtype"] = f"\"{kernel}\" not implemented for '{scalar_name}'"


def _engine_problem(make) -> str | None:
    """The engine's refusal of the same call (a dry run, unseen by the panels), or None."""
    try:
        with hub.muted():
            make()
    except (ValueError, TypeError, RuntimeError, OverflowError) as e:
        return str(e)
    return None


# -- writing ------------------------------------------------------------------------------------

def tensor_statement(form: TensorForm, source: str) -> str:
    """The line the form writes, e.g. ``x = torch.tensor([1.0, 2.0], requires_grad=True)``."""
    torch = torch_import(source)[0]
    name = form.name.strip()
    # "auto" is what the call gives by itself: torch.tensor infers, the factories make float32
    implicit = ("auto",) if form.mode == "values" else ("auto", DEFAULT_FLOAT)
    dtype_kw = [] if form.dtype in implicit else [f"dtype={torch}.{form.dtype}"]
    grad_kw = ["requires_grad=True"] if form.requires_grad else []
    if form.mode == "values":
        text = form.values.strip()
        if _is_bare_tuple(text):
            text = f"[{text}]"
        return f"{name} = {torch}.tensor({', '.join([text, *dtype_kw, *grad_kw])})"
    shape = parse_shape(form.shape)
    if form.mode == "arange":
        return f"{name} = {_arange_expression(torch, shape, form, dtype_kw)}"
    sizes = [", ".join(map(str, shape))] if shape else ["()"]
    return f"{name} = {torch}.{form.mode}({', '.join([*sizes, *dtype_kw, *grad_kw])})"


def _arange_expression(torch: str, shape, form: TensorForm, dtype_kw) -> str:
    count = math.prod(shape)
    integral = form.dtype not in ("auto",) and not form.dtype.startswith("float")
    start = f"{count}" if integral else f"{count}."  # ``6.`` makes it float32 without a dtype=
    if len(shape) == 1:
        kws = [*dtype_kw, *(["requires_grad=True"] if form.requires_grad else [])]
        return f"{torch}.arange({', '.join([start, *kws])})"
    # arange(..., requires_grad=True).reshape(...) would make the result a non-leaf (a view
    # with ViewBackward0) whose .grad stays None; reshaping first and then requires_grad_()
    # keeps the named tensor a leaf that collects its gradient.
    text = f"{torch}.arange({', '.join([start, *dtype_kw])}).reshape({', '.join(map(str, shape))})"
    return text + (".requires_grad_()" if form.requires_grad else "")


def new_tensor(source: str, workspace, form: TensorForm) -> CodeEdit:
    """The edit that appends the form's statement (and ``import torch`` if the script lacks it)."""
    errors = form_errors(form, workspace)
    for field in (*FIELDS, "mode"):
        if field in errors:
            raise BuildError(field, errors[field])
    _, imports = torch_import(source)
    return append_statement(source, tensor_statement(form, source), imports=imports)
