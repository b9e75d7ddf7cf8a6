"""Breakpoints: on lines (optionally with a condition) and on data (NaN/Inf, gradient norm,
``backward()``, ``zero_grad()``, ``optimizer.step()``).

The data breakpoints are one type everywhere: ``engine.files.DataBreakpoints`` (``nan``,
``grad_norm``, ``on_backward``, ``on_zero_grad``, ``on_step``), what a graph file saves, what the
window's Debug menu checks and what a session (or the recording player) stops on.

A condition is an expression in the script's language, evaluated against the paused frame by a
small safe evaluator: names, attributes without underscores, constants, comparisons, arithmetic,
boolean logic, subscripts and a few read-only calls (``len``, ``abs``, ``.item()``, ``.sum()``...).
It runs under ``no_grad`` so that it records nothing in the user's graph.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..autograd.grad_mode import no_grad
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


_BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_CMPOPS = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_}
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


class _Evaluator:
    def __init__(self, names: Mapping) -> None:
        self.names = names

    def eval(self, node: ast.AST) -> Any:
        method = getattr(self, "_" + type(node).__name__)
        return method(node)

    def _Expression(self, node):
        return self.eval(node.body)

    def _Constant(self, node):
        return node.value

    def _Name(self, node):
        if node.id in self.names:
            return self.names[node.id]
        if node.id in _FUNCTIONS:
            return _FUNCTIONS[node.id]
        if node.id in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[node.id]
        raise ConditionError(f"name {node.id!r} is not defined here")

    def _Attribute(self, node):
        return getattr(self.eval(node.value), node.attr)

    def _Tuple(self, node):
        return tuple(self.eval(e) for e in node.elts)

    def _Subscript(self, node):
        return self.eval(node.value)[self.eval(node.slice)]

    def _Slice(self, node):
        part = lambda n: None if n is None else self.eval(n)  # noqa: E731
        return slice(part(node.lower), part(node.upper), part(node.step))

    def _BinOp(self, node):
        return _BINOPS[type(node.op)](self.eval(node.left), self.eval(node.right))

    def _UnaryOp(self, node):
        return _UNARY[type(node.op)](self.eval(node.operand))

    def _BoolOp(self, node):
        if isinstance(node.op, ast.And):
            result = True
            for v in node.values:
                result = self.eval(v)
                if not result:
                    return result
            return result
        result = False
        for v in node.values:
            result = self.eval(v)
            if result:
                return result
        return result

    def _Compare(self, node):
        left = self.eval(node.left)
        for op, comparator in zip(node.ops, node.comparators):
            right = self.eval(comparator)
            if not _CMPOPS[type(op)](left, right):
                return False
            left = right
        return True

    def _Call(self, node):
        func = self.eval(node.func)
        return func(*[self.eval(a) for a in node.args])


def evaluate_condition(condition: str | ast.Expression, names: Mapping) -> bool:
    """Evaluate a breakpoint condition against the paused frame's names.

    Raises
    ------
    ConditionError
        When the condition is not allowed or fails (an unknown name, a tensor error...).
    """
    tree = compile_condition(condition) if isinstance(condition, str) else condition
    try:
        with no_grad():
            return bool(_Evaluator(names).eval(tree))
    except ConditionError:
        raise
    except Exception as e:
        raise ConditionError(f"condition failed: {type(e).__name__}: {e}") from e


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
