"""Plain-language explanations of PyTorch's classic autograd errors, with the usual fixes.

The session attaches an ``Explanation`` to a script error. Matching is on the engine exception's
type and message (PyTorch's own wording), and the statement that failed names the tensor.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..tensor import Tensor


@dataclass(frozen=True)
class Explanation:
    """What went wrong, in plain words, and how people usually fix it.

    Attributes
    ----------
    kind : str
        A stable key: ``non_scalar_backward``, ``backward_twice``, ``inplace_modified``,
        ``item_many_elements``, ``no_grad_fn``, ``leaf_inplace``, ``numpy_requires_grad``,
        ``shape_mismatch``, or the script error's kind (``syntax``, ``forbidden``, ``limit``,
        ``runtime``).
    title : str
    text : str
        The explanation, naming the tensor and the numbers involved.
    fixes : tuple of str
        The usual fixes, most common first, as code the user can type.
    subject : str or None
        The tensor (script name) or node (``MulBackward0``) concerned.
    line, col : int or None
        Where in the script.
    """

    kind: str
    title: str
    text: str
    fixes: tuple = ()
    subject: str | None = None
    line: int | None = None
    col: int | None = None
    details: dict = field(default_factory=dict)


def _calls(stmt: ast.AST | None, method: str) -> list[ast.Call]:
    if stmt is None:
        return []
    return [
        n for n in ast.walk(stmt)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == method
    ]


def _receiver_text(call: ast.Call) -> str | None:
    try:
        return ast.unparse(call.func.value)
    except Exception:
        return None


def _receiver(stmt: ast.AST | None, method: str, default: str | None = None) -> str | None:
    """The script's text for what the statement's first ``.method()`` is called on."""
    call = next(iter(_calls(stmt, method)), None)
    return (_receiver_text(call) if call is not None else None) or default


def evaluate_name(text: str | None, namespace: Mapping) -> object:
    """The value of a dotted name like ``model.out`` in ``namespace`` (None if not that simple)."""
    if not text or not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z]\w*)*", text):
        return None
    head, *rest = text.split(".")
    value = namespace.get(head)
    for attr in rest:
        value = getattr(value, attr, None)
    return value


def _name_of(tensor: Tensor, namespace: Mapping) -> str | None:
    for name, value in namespace.items():
        if value is tensor:
            return name
    return None


def _non_scalar_backward(cause, stmt, namespace, line, col) -> Explanation:
    name = _receiver(stmt, "backward")
    value = evaluate_name(name, namespace)
    name = name or "the output"
    node = None
    if isinstance(value, Tensor):
        count = value.numel()
        shape = f" (shape {list(value.shape)})"
        node = value.grad_fn.name() if value.grad_fn is not None else None
    else:
        count, shape = None, ""
    head = f"{name} has {count} elements{shape}" if count is not None else f"{name} is not a scalar"
    text = (
        f"{head}; call {name}.sum().backward() or {name}.backward(torch.ones_like({name})). "
        "backward() without an argument starts from a gradient of 1, which only makes sense for "
        "a single number. For a tensor of several elements, say which combination of them to "
        "differentiate: summing them, or passing the gradient of each element explicitly "
        "(all ones gives the same result as summing)."
    )
    return Explanation(
        "non_scalar_backward",
        "backward() needs a scalar (or a gradient argument)",
        text,
        (f"{name}.sum().backward()", f"{name}.backward(torch.ones_like({name}))"),
        name, line, col, {"elements": count, "node": node},
    )


@dataclass(frozen=True)
class _Named:
    """An explanation that needs only the name of what a method was called on: ``{name}`` in
    its text and fixes is the script's text for it (``default`` if the statement does not
    say)."""

    kind: str
    title: str
    method: str
    default: str
    text: str
    fixes: tuple

    def __call__(self, cause, stmt, namespace, line, col) -> Explanation:
        name = _receiver(stmt, self.method, self.default)
        return Explanation(self.kind, self.title, self.text.format(name=name),
                           tuple(fix.format(name=name) for fix in self.fixes), name, line, col)


_backward_twice = _Named(
    "backward_twice", "Backward through the graph a second time", "backward", "the output",
    "The graph behind {name} was already used by an earlier backward(), which freed the "
    "intermediate values it saved to save memory. A second backward through the same graph "
    "needs them again. Either keep them with retain_graph=True on the first backward, or "
    "recompute the forward pass (rebuild the graph) before each backward, as a training "
    "loop does on every iteration.",
    ("{name}.backward(retain_graph=True)  # on the first call",
     "recompute the forward pass before calling backward() again"))

_no_grad_fn = _Named(
    "no_grad_fn", "Nothing to differentiate: no grad_fn", "backward", "the output",
    "{name} does not depend on any tensor that requires grad, so there is no graph to "
    "differentiate (element 0 of tensors does not require grad). Usually a leaf was created "
    "without requires_grad=True, or the path to it was cut by .detach(), .data, .item() or "
    "a torch.no_grad() block.",
    ("create the leaf with requires_grad=True (or call leaf.requires_grad_())",
     "do not .detach() or use .data on the path to the loss",
     "compute the loss outside torch.no_grad()"))

_numpy_requires_grad = _Named(
    "numpy_requires_grad", ".numpy() on a tensor that requires grad", "numpy", "x",
    "{name} is part of a graph; numpy arrays cannot record operations, so converting it "
    "would silently leave the graph. Say so explicitly with detach().",
    ("{name}.detach().numpy()",))


_MODIFIED = re.compile(
    r"\[torch\.(\w+) \[([\d, ]*)\]\], which is (.*?), is at version (\d+); expected version (\d+)"
)


def _inplace_modified(cause, stmt, namespace, line, col) -> Explanation:
    m = _MODIFIED.search(str(cause))
    subject = None
    details: dict = {}
    if m:
        tensor_type, shape, producer, version, expected = m.groups()
        shape_t = tuple(int(s) for s in shape.split(",") if s.strip())
        details = {"shape": list(shape_t), "producer": producer, "version": int(version),
                   "expected_version": int(expected)}
        for name, value in namespace.items():
            if (isinstance(value, Tensor) and tuple(value.shape) == shape_t
                    and value._version.value == int(version)):
                subject = name
                break
        what = f"{subject} ({producer}, shape {list(shape_t)})" if subject else (
            f"a tensor of shape {list(shape_t)} ({producer})")
        text = (
            f"{what} was saved by an operation for the backward pass, then changed in place "
            f"(its version went from {expected} to {version}). The gradient needs the value "
            "as it was when it was used, so autograd refuses to compute with the new one."
        )
    else:
        text = ("A tensor that an operation saved for the backward pass was changed in place "
                "afterwards, so the gradient can no longer be computed from it.")
    target = subject or "x"
    return Explanation(
        "inplace_modified",
        "A tensor needed for the gradient was modified in place",
        text,
        (f"use an out-of-place operation: {target} = {target} * 2 instead of {target} *= 2 "
         f"(or {target}.mul_(2))",
         f"clone before modifying: {target} = {target}.clone()",
         "move the in-place change after backward()"),
        subject, line, col, details,
    )


def _item_many(cause, stmt, namespace, line, col) -> Explanation:
    m = re.search(r"a Tensor with (\d+) elements", str(cause))
    count = int(m.group(1)) if m else None
    name = _receiver(stmt, "item", "x")
    text = (f"{name} has {count} elements, but .item() returns one Python number and only works "
            "on a tensor with exactly one element. Reduce it first, or convert the whole tensor.")
    return Explanation(
        "item_many_elements",
        ".item() on a tensor with many elements",
        text,
        (f"{name}.sum().item()", f"{name}.mean().item()", f"{name}.tolist()"),
        name, line, col, {"elements": count},
    )


def _leaf_inplace(cause, stmt, namespace, line, col) -> Explanation:
    target = None
    if isinstance(stmt, ast.AugAssign):
        target = ast.unparse(stmt.target)
    elif stmt is not None:
        calls = [n for n in ast.walk(stmt) if isinstance(n, ast.Call)
                 and isinstance(n.func, ast.Attribute) and n.func.attr.endswith("_")
                 and not n.func.attr.startswith("_")]
        if calls:
            target = _receiver_text(calls[0])
        elif isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Subscript):
            target = ast.unparse(stmt.targets[0].value)
    name = target or "the leaf"
    text = (
        f"{name} is a leaf that requires grad: autograd accumulates its gradient and needs its "
        "value unchanged. Changing it in place while the graph is recorded is not allowed. "
        "Parameter updates belong inside torch.no_grad() (as optimizers do)."
    )
    return Explanation(
        "leaf_inplace",
        "In-place change of a leaf that requires grad",
        text,
        (f"with torch.no_grad():\n    {name} -= lr * {name}.grad",
         f"use an out-of-place operation: {name} = {name} + 1 (makes a new non-leaf tensor)"),
        name, line, col,
    )


# ------------------------------------------------------------------------------ shape errors
def _operands(stmt) -> tuple[str, str]:
    """The script's text of the two operands of the failing ``a @ b``, ``torch.mm(a, b)``... or
    ("a", "b")."""
    for node in ast.walk(stmt) if stmt is not None else ():
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.MatMult, ast.Add, ast.Sub,
                                                                 ast.Mult, ast.Div)):
            return ast.unparse(node.left), ast.unparse(node.right)
        if isinstance(node, ast.Call) and len(node.args) >= 2:
            name = ast.unparse(node.func).rsplit(".", 1)[-1]
            if name in ("mm", "matmul", "bmm", "mul", "add", "sub", "div"):
                return ast.unparse(node.args[0]), ast.unparse(node.args[1])
            if name == "addmm" and len(node.args) >= 3:
                return ast.unparse(node.args[1]), ast.unparse(node.args[2])
    return "a", "b"


_SHAPE_HINT = ("The shapes of the operands on this line do not fit this operation. Print each "
               "operand's .shape just before the line to see which one is off.")


def _shape_rule(pattern: str, fallback: str):
    """A shape error's explainer, ``build(match, cause, stmt, line, col)``, called with the match
    of ``pattern`` in PyTorch's message; a message worded otherwise gets a general hint under
    ``fallback``."""
    regex = re.compile(pattern)

    def rule(build):
        def explain(cause, stmt, namespace, line, col) -> Explanation:
            m = regex.search(str(cause))
            if not m:  # the message (the error's headline) is not repeated here
                return Explanation("shape_mismatch", fallback, _SHAPE_HINT, (), None, line, col)
            return build(m, cause, stmt, line, col)

        return explain

    return rule


def _in_linear(cause) -> bool:
    """Whether ``cause`` was raised inside ``nn.functional.linear`` (an nn.Linear layer, also one
    inside a Sequential or a script's forward, or a direct F.linear call)."""
    tb = getattr(cause, "__traceback__", None)
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_name == "linear" and frame.f_globals.get("__name__") == (
                "engine.nn.functional"):
            return True
        tb = tb.tb_next
    return False


@_shape_rule(r"\((\d+)x(\d+) and (\d+)x(\d+)\)", "Matrix shapes do not fit")
def _matmul_shapes(m, cause, stmt, line, col) -> Explanation:
    ar, ac, br, bc = (int(g) for g in m.groups())
    details = {"a": [ar, ac], "b": [br, bc]}
    if _in_linear(cause):  # mat2 is the weight's transpose: (in_features, out_features)
        text = (f"A Linear layer expecting {br} input features got {ac}: its input is "
                f"{ar}x{ac} (it has {ac} columns), and the layer multiplies it by its weight's "
                f"transpose, {br}x{bc} (it has {br} rows). nn.Linear stores the weight as "
                f"(out, in) = ({bc}, {br}): make in_features={ac}, or fix the input's last "
                f"dimension to {br}.")
        fixes = [f"nn.Linear({ac}, {bc})  # in_features must be the input's last size"]
        if ar * ac % br == 0:
            fixes.append(f"x.reshape(-1, {br})  # if the input really holds rows of {br}")
        return Explanation("shape_mismatch", "Linear layer: wrong number of input features",
                           text, tuple(fixes), None, line, col, {**details, "linear": True})
    a, b = _operands(stmt)
    text = (f"{a} is {ar}x{ac} (it has {ac} columns) and {b} is {br}x{bc} (it has {br} rows). "
            f"To multiply a @ b, b's rows must equal a's columns: ({ar}x{ac}) @ ({ac}x?) gives "
            f"{ar}x?.")
    fixes = []
    if bc == ac:
        fixes.append(f"{a} @ {b}.T  # ({ar}x{ac}) @ ({bc}x{br}) -> {ar}x{br}")
    if ar == br:
        fixes.append(f"{a}.T @ {b}  # ({ac}x{ar}) @ ({br}x{bc}) -> {ac}x{bc}")
    if br * bc % ac == 0:
        fixes.append(f"{b}.reshape({ac}, {br * bc // ac})  # same elements, {ac} rows")
    return Explanation("shape_mismatch", "Matrix shapes do not fit: inner dimensions differ",
                       text, tuple(fixes), a, line, col, details)


@_shape_rule(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at "
             r"non-singleton dimension (-?\d+)", "Shapes do not broadcast")
def _broadcast_shapes(m, cause, stmt, line, col) -> Explanation:
    sa, sb, dim = (int(g) for g in m.groups())
    a, b = _operands(stmt)
    text = (f"Dimension {dim} disagrees: {a} has size {sa} there and {b} has size {sb}. "
            "Elementwise operations line shapes up from the right; two sizes broadcast only "
            "when they are equal or one of them is 1. Insert a size-1 dimension where one "
            "operand should repeat, or reshape one to the other's layout.")
    fixes = (f"{a}.unsqueeze({dim})  # a size-1 dimension repeats along the other",
             f"{b}.unsqueeze({dim})",
             f"{b}.reshape(...)  # to the shape of {a}, with {sa} at dimension {dim}",
             f"{b}.T  # if the two are transposes of each other")
    return Explanation("shape_mismatch", f"Shapes do not broadcast at dimension {dim}",
                       text, fixes, a, line, col, {"a": sa, "b": sb, "dim": dim})


@_shape_rule(r"except in dimension (-?\d+)\. Expected size (\d+) but got size (\d+) for "
             r"tensor number (\d+)", "Tensors do not fit together")
def _cat_shapes(m, cause, stmt, line, col) -> Explanation:
    dim, expected, got, index = (int(g) for g in m.groups())
    text = (f"torch.cat joins tensors along dimension {dim}: every other dimension must have "
            f"the same size. The first tensor has size {expected} in a dimension where tensor "
            f"number {index} has {got}. Choose the dimension they really differ in, or reshape "
            "the odd one out.")
    fixes = ("torch.cat(tensors, dim=...)  # the dimension whose sizes differ",
             f"tensors[{index}].reshape(...)  # to size {expected} in every other dimension",
             f"tensors[{index}].T")
    return Explanation("shape_mismatch", "torch.cat: sizes differ outside the joined dimension",
                       text, fixes, None, line, col,
                       {"dim": dim, "expected": expected, "got": got, "index": index})


@_shape_rule(r"got \[([\d, ]*)\] at entry (\d+) and \[([\d, ]*)\] at entry (\d+)",
             "torch.stack: shapes differ")
def _stack_shapes(m, cause, stmt, line, col) -> Explanation:
    first, i, other, j = m.groups()
    sa = [int(x) for x in first.split(",") if x.strip()]
    sb = [int(x) for x in other.split(",") if x.strip()]
    dims = [k for k, (p, q) in enumerate(zip(sa, sb)) if p != q]
    where = (f"dimension {dims[0]} ({sa[dims[0]]} vs {sb[dims[0]]})" if dims
             else f"their number of dimensions ({len(sa)} vs {len(sb)})")
    text = (f"torch.stack needs tensors of exactly one shape; entry {i} is {sa} and entry {j} "
            f"is {sb}: they differ in {where}. To join tensors of different sizes along an "
            "existing dimension use torch.cat; else reshape them to one shape first.")
    fixes = ("torch.cat(tensors, dim=0)  # joins along a dimension, sizes may differ there",
             f"tensors[{j}].reshape({', '.join(map(str, sa))})",
             f"tensors[{j}].unsqueeze(0)  # if one has a dimension fewer")
    return Explanation("shape_mismatch", "torch.stack: the tensors' shapes differ", text, fixes,
                       None, line, col, {"a": sa, "b": sb, "entries": [int(i), int(j)]})


def _dot_shapes(cause, stmt, namespace, line, col) -> Explanation:
    m = re.search(r"got (\d+) and (\d+) elements", str(cause))
    a, b = _operands(stmt)
    na, nb = (int(g) for g in m.groups()) if m else (None, None)
    text = (f"A dot product of two vectors needs as many elements in each: {a} has {na}, "
            f"{b} has {nb}. To multiply a vector by a matrix, make one operand 2-D.")
    # only fixes that run for these lengths (they differ, so no (1xn) @ (nx1))
    fixes = (f"torch.outer({a}, {b})  # every product of one element of each: ({na}x{nb})",)
    if na and nb and na % nb == 0:
        fixes += (f"{a}.reshape(-1, {nb}) @ {b}  # {a} as {na // nb} rows of {nb}",)
    elif na and nb and nb % na == 0:
        fixes += (f"{a} @ {b}.reshape({na}, -1)  # {b} as {na} rows of {nb // na}",)
    return Explanation("shape_mismatch", "Vectors of different lengths", text, fixes, a, line,
                       col, {"a": na, "b": nb})


# (exception type name, message fragment, builder), first match wins.
_RULES = (
    ("RuntimeError", "grad can be implicitly created only for", _non_scalar_backward),
    ("RuntimeError", "Trying to backward through the graph a second time", _backward_twice),
    ("RuntimeError", "has been modified by an inplace operation", _inplace_modified),
    ("RuntimeError", "cannot be converted to Scalar", _item_many),
    ("RuntimeError", "does not require grad and does not have a grad_fn", _no_grad_fn),
    ("RuntimeError", "leaf Variable that requires grad is being used in an in-place",
     _leaf_inplace),
    ("RuntimeError", "Can't call numpy() on Tensor that requires grad", _numpy_requires_grad),
    ("RuntimeError", "shapes cannot be multiplied", _matmul_shapes),
    ("RuntimeError", "must match the size of tensor b", _broadcast_shapes),
    ("RuntimeError", "Sizes of tensors must match except in dimension", _cat_shapes),
    ("RuntimeError", "stack expects each tensor to be equal size", _stack_shapes),
    ("RuntimeError", "inconsistent tensor size, expected tensor", _dot_shapes),
)

_KIND_TITLES = {
    "syntax": "The script is not valid Python",
    "forbidden": "This construct is not allowed in gradstep scripts",
    "limit": "The script exceeded a safety limit",
    "runtime": "The script raised an error",
}

# What each kind of error means, in plain words. The error's own message is its headline, shown
# next to this (the console's error row, the tooltip's first line): never repeated here.
_KIND_TEXTS = {
    "syntax": "Python cannot read the script at the marked position. The mistake is often just "
              "before it: an unclosed bracket or string, a missing colon after if, for or def, "
              "or an indentation that does not line up.",
    "forbidden": "gradstep runs scripts in a sandbox: tensors, autograd, nn, optim, data "
                 "loading and Python's usual builtins work; whatever reaches files, other "
                 "processes or the interpreter's internals (open, eval, names starting with "
                 "'_' of objects that are not the script's) is refused. Rewrite the line "
                 "without it; to debug an unchanged PyTorch script, record it with "
                 "`gradstep record`.",
    "limit": "A safety limit ended the script, so that a runaway loop or a huge allocation "
             "cannot hang the window or exhaust the machine. If the work is meant, make it "
             "smaller (fewer iterations, smaller tensors); a .gstep file's settings.limits "
             "may set each limit (max_statements, max_list, max_tensor_elements...) up to the "
             "app's.",
    "runtime": "The script raised this exception, with PyTorch's type and message. Inspect "
               "the tensors the marked line uses (their shapes, dtypes and requires_grad) to "
               "see which one is not what the line expects.",
}


def explain_exception(
    cause: BaseException,
    stmt: ast.AST | None = None,
    namespace: Mapping | None = None,
    line: int | None = None,
    col: int | None = None,
) -> Explanation | None:
    """The explanation of one of PyTorch's classic errors, or None for any other exception."""
    message = str(cause)
    for type_name, fragment, build in _RULES:
        if type(cause).__name__ == type_name and fragment in message:
            return build(cause, stmt, namespace or {}, line, col)
    return None


def explain(error, stmt: ast.AST | None = None, namespace: Mapping | None = None) -> Explanation:
    """The explanation of a ``ScriptError`` (always one: generic when the error is not classic).

    Parameters
    ----------
    error : ScriptError
        With ``kind``, ``line``, ``col``, ``message`` and the engine's exception as ``__cause__``.
    stmt : ast.stmt, optional
        The statement that failed (names the tensor concerned).
    namespace : mapping, optional
        The names visible there (counts the tensor's elements, finds the modified tensor).
    """
    line, col = getattr(error, "line", None), getattr(error, "col", None)
    cause = error.__cause__
    if cause is not None:
        found = explain_exception(cause, stmt, namespace, line, col)
        if found is not None:
            return found
    kind = getattr(error, "kind", "runtime")
    text = _KIND_TEXTS.get(kind) or getattr(error, "message", str(error))
    return Explanation(kind, _KIND_TITLES.get(kind, "Error"), text, (), None, line, col)
