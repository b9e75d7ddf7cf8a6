"""Breakpoints: on lines (optionally with a condition) and on data (NaN/Inf, gradient norm,
``backward()``, ``zero_grad()``, ``optimizer.step()``).

The data breakpoints are one type everywhere: ``engine.files.DataBreakpoints`` (``nan``,
``grad_norm``, ``on_backward``, ``on_zero_grad``, ``on_step``), what a graph file saves, what the
window's Debug menu checks and what a session (or the recording player) stops on.

A condition is an expression in the script's language: names, attributes without underscores,
constants, comparisons, arithmetic, boolean logic, subscripts and a few read-only calls (``len``,
``abs``, ``.item()``, ``.sum()``...), checked here (``compile_condition``) and evaluated by the
script's own interpreter (``Interpreter.evaluate_condition``: the run's limits, under
``no_grad`` so that it records nothing in the user's graph).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..files.format import DataBreakpoints  # noqa: F401 - the one type, re-exported


class ConditionError(ValueError):
    """A breakpoint condition that is not allowed or cannot be evaluated."""


@dataclass
class LineBreakpoint:
    """Pause before the statement on ``line`` (when ``condition`` is true, if given)."""

    line: int
    condition: str | None = None
    enabled: bool = True
    hits: int = 0


_FUNCTIONS = {"len": len, "abs": abs, "float": float, "int": int, "bool": bool, "min": min,
              "max": max, "round": round}
# Read-only tensor methods a condition may call, with no arguments.
_METHODS = {"item", "sum", "mean", "norm", "max", "min", "abs", "numel", "isnan", "isinf",
            "any", "all", "std", "tolist", "dim", "size"}


def compile_condition(text: str) -> ast.Expression:
    """Parse and check ``text``; raises ``ConditionError`` naming what is not allowed."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as e:
        raise ConditionError(f"invalid condition {text!r}: {e.msg}") from None
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            raise ConditionError(f"attribute {node.attr!r} is not allowed in a condition")
        if isinstance(node, ast.Name) and node.id.startswith("__"):
            raise ConditionError(f"name {node.id!r} is not allowed in a condition")
        if isinstance(node, ast.Call):
            func = node.func
            ok = (isinstance(func, ast.Name) and func.id in _FUNCTIONS) or (
                isinstance(func, ast.Attribute) and func.attr in _METHODS
                and not node.args and not node.keywords
            )
            if not ok:
                raise ConditionError(f"call {ast.unparse(func)}() is not allowed in a condition")
        allowed = (ast.Expression, ast.Name, ast.Attribute, ast.Constant, ast.Compare, ast.BinOp,
                   ast.UnaryOp, ast.BoolOp, ast.Call, ast.Subscript, ast.Load, ast.Tuple,
                   ast.Slice, ast.operator, ast.cmpop, ast.unaryop, ast.boolop)
        if not isinstance(node, allowed):
            raise ConditionError(f"{type(node).__name__} is not allowed in a condition")
    return tree


def as_line_breakpoints(specs: Iterable) -> list[LineBreakpoint]:
    """Breakpoints from what callers hand over: ints, ``(line, condition)`` pairs, dicts with
    ``line``/``condition``, or objects with those attributes (a graph file's breakpoints)."""
    out = []
    for spec in specs or ():
        if isinstance(spec, LineBreakpoint):
            out.append(spec)
        elif isinstance(spec, int):
            out.append(LineBreakpoint(spec))
        elif isinstance(spec, (tuple, list)):
            out.append(LineBreakpoint(int(spec[0]), spec[1] if len(spec) > 1 else None))
        elif isinstance(spec, Mapping):
            out.append(LineBreakpoint(int(spec["line"]), spec.get("condition"),
                                      bool(spec.get("enabled", True))))
        else:
            out.append(LineBreakpoint(int(spec.line), getattr(spec, "condition", None),
                                      bool(getattr(spec, "enabled", True))))
    return out
