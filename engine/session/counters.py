"""Counters of a run: backward passes, ``zero_grad()`` calls, optimizer steps, iteration.

``backward`` counts the engine's ``backward_started`` events (every ``backward()``, including
``torch.autograd.backward``). ``zero_grad`` and ``step`` are counted per call: the engine reports
one event per parameter, so a statement's calls are read from its AST, resolved against the
frame to an optimizer or module (a ``scheduler.step()`` is not an optimizer step), and counted
once the statement has run without error.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass

from .explain import evaluate_name
from .state import is_module, is_optimizer


@dataclass
class Counters:
    """What the run has done so far."""

    backward: int = 0
    zero_grad: int = 0
    step: int = 0
    iteration: int | None = None

    def as_dict(self) -> dict:
        return {"backward": self.backward, "zero_grad": self.zero_grad, "step": self.step,
                "iteration": self.iteration}


def _resolve(expr: ast.AST, names: Mapping):
    try:
        text = ast.unparse(expr)
    except Exception:
        return None
    return evaluate_name(text, names)


def _own_nodes(stmt: ast.stmt):
    """The statement's own expressions: a compound statement's header, not its body."""
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        roots = [stmt.iter]
    elif isinstance(stmt, (ast.While, ast.If)):
        roots = [stmt.test]
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        roots = [item.context_expr for item in stmt.items]
    elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Try)):
        roots = []
    else:
        roots = [stmt]
    for root in roots:
        stack = [root]
        while stack:
            node = stack.pop()
            yield node
            for child in ast.iter_child_nodes(node):
                if not isinstance(child, (ast.Lambda, ast.FunctionDef, ast.ClassDef)):
                    stack.append(child)


@dataclass(frozen=True)
class StatementCalls:
    """The optimizer/module calls a statement makes, and whether it calls ``backward()``."""

    zero_grad: int = 0
    step: int = 0
    backward: bool = False


def calls_in(stmt: ast.stmt | None, names: Mapping) -> StatementCalls:
    """Count ``X.zero_grad()`` (X an optimizer or module) and ``X.step()`` (X an optimizer)."""
    if stmt is None:
        return StatementCalls()
    zero = step = 0
    backward = False
    for node in _own_nodes(stmt):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        attr = node.func.attr
        if attr == "backward":
            backward = True
        elif attr in ("zero_grad", "step"):
            target = _resolve(node.func.value, names)
            if attr == "zero_grad" and (is_optimizer(target) or is_module(target)):
                zero += 1
            elif attr == "step" and is_optimizer(target):
                step += 1
    return StatementCalls(zero, step, backward)
