"""Parsing and the checks made before a script runs a single statement.

Everything that can be refused by looking at the text is refused here, with the line of the
offending construct: underscore attributes, dunder names, imports of anything but torch, numpy
and the allowed standard modules (``modules.import_refusal`` says why),
language features the interpreter does not support. The pass also annotates nodes with what the
interpreter would otherwise recompute at every execution (the operator function of a ``BinOp``,
whether a call has ``*``/``**`` arguments).
"""

from __future__ import annotations

import ast
import operator

from .errors import ScriptError, forbidden, limit
from .limits import Limits
from .modules import ENGINE_MODULES, STDLIB_MODULES, engine_module, import_refusal
from .pause import Frame
from .safety import (
    CLASS_DUNDERS,
    IMPORTABLE_UNDERSCORE_NAMES,
    READABLE_DUNDER_NAMES,
    may_read_underscore,
)

MAX_AST_DEPTH = 100

IMPORTABLE = frozenset(ENGINE_MODULES) | {"numpy", "numpy.random"} | frozenset(STDLIB_MODULES)

BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
    ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.BitAnd: operator.and_,
    ast.MatMult: operator.matmul,
}
# the in-place twin of each (operator.or_ -> operator.ior)
INPLACE = {k: getattr(operator, "i" + op.__name__.rstrip("_")) for k, op in BINOPS.items()}
UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_,
         ast.Invert: operator.invert}


def _in(a, b):
    return a in b


def _not_in(a, b):
    return a not in b


COMPARE = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: _in, ast.NotIn: _not_in,
}

UNSUPPORTED = {
    ast.AsyncFunctionDef: "async functions are not supported",
    ast.AsyncFor: "async loops are not supported",
    ast.AsyncWith: "async with is not supported",
    ast.Await: "await is not supported",
    ast.Match: "match statements are not supported",
}
if hasattr(ast, "TryStar"):
    UNSUPPORTED[ast.TryStar] = "except* is not supported"


# Checked trees of recent scripts: a session re-runs the same text (restart, time travel) and the
# interpreter never changes a tree, so the parse and the checks are done once per text.
_CHECKED: dict = {}
_CHECKED_MAX = 16


def parse(source, filename: str, limits: Limits) -> ast.Module:
    """Parse and check ``source``; raises ScriptError (syntax, forbidden or limit)."""
    if not isinstance(source, str):
        raise ScriptError("syntax", "a script must be text")
    if len(source) > limits.max_string:
        raise limit(f"script too long: {len(source)} characters (the limit is {limits.max_string})")
    key = (source, filename)
    tree = _CHECKED.get(key)
    if tree is None:
        tree = _parse_and_check(source, filename)
        if len(_CHECKED) >= _CHECKED_MAX:
            _CHECKED.clear()
        _CHECKED[key] = tree
    return tree


def _parse_and_check(source: str, filename: str) -> ast.Module:
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as e:
        col = (e.offset - 1) if e.offset else 0
        raise ScriptError("syntax", f"{type(e).__name__}: {e.msg}", e.lineno, col) from None
    except (RecursionError, MemoryError):
        raise limit("the script is nested too deeply to parse") from None
    except ValueError as e:  # e.g. null bytes
        raise ScriptError("syntax", f"SyntaxError: {e}") from None
    Checker().check(tree)
    _mark_generators(tree)
    return tree


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _mark_generators(tree: ast.Module) -> None:
    """Set ``gs_generator`` on every ``def`` (True when its own body yields) and refuse a yield
    outside a function, in a comprehension or in a lambda."""
    stack = [(tree, None, None)]
    while stack:
        node, fn, comp = stack.pop()
        kind = type(node)
        if kind is ast.Yield or kind is ast.YieldFrom:
            word = "yield" if kind is ast.Yield else "yield from"
            if fn is None:
                raise ScriptError("syntax", f"SyntaxError: '{word}' outside function",
                                  node.lineno, node.col_offset)
            if comp is not None:
                what = {ast.ListComp: "list comprehension", ast.SetComp: "set comprehension",
                        ast.DictComp: "dict comprehension",
                        ast.GeneratorExp: "generator expression"}[type(comp)]
                raise ScriptError("syntax", f"SyntaxError: '{word}' inside {what}",
                                  node.lineno, node.col_offset)
            if type(fn) is ast.Lambda:
                raise forbidden("yield inside a lambda is not supported: use a def", node)
            fn.gs_generator = True
        if kind is ast.FunctionDef or kind is ast.Lambda:
            node.gs_generator = False
            fn, comp = node, None
        elif kind is ast.ClassDef:
            fn, comp = None, None
        elif kind in _COMPREHENSIONS:
            comp = node
        for child in ast.iter_child_nodes(node):
            stack.append((child, fn, comp))


def _is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


class Checker:
    """Walks the tree once (iteratively: the tree may be deep), refusing and annotating."""

    def check(self, tree: ast.Module) -> None:
        stack = [(tree, 0, None, None, "<module>")]
        defines = False
        while stack:
            node, depth, parent, located, scope = stack.pop()
            if hasattr(node, "lineno"):
                located = node
            if depth > MAX_AST_DEPTH:
                raise limit("the script is nested too deeply", located)
            self.visit(node, parent)
            if isinstance(node, ast.stmt):
                # the call-stack entry of a pause before this statement never changes
                node.gs_frame = Frame(scope, node.lineno)
            if isinstance(node, ast.Lambda):
                defines = True
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                defines = True
                inner = node.name
                for child in node.body:
                    stack.append((child, depth + 1, node, located, inner))
                for field in ("decorator_list", "bases", "args", "returns"):
                    value = getattr(node, field, None)
                    children = value if isinstance(value, list) else [value]
                    for child in children:
                        if isinstance(child, ast.AST):
                            stack.append((child, depth + 1, node, located, scope))
                continue
            for child in ast.iter_child_nodes(node):
                stack.append((child, depth + 1, node, located, scope))
        # whether the script makes functions or classes (code the engine could call back into)
        tree.gs_defines = defines

    def visit(self, node, parent) -> None:
        kind = type(node)
        reason = UNSUPPORTED.get(kind)
        if reason is not None:
            raise forbidden(reason, node)
        if kind is ast.Name:
            if _is_dunder(node.id) and not (
                node.id in READABLE_DUNDER_NAMES and isinstance(node.ctx, ast.Load)
            ):
                raise forbidden(f"the name '{node.id}' is not available", node)
        elif kind is ast.Attribute:
            if node.attr.startswith("_") and not may_read_underscore(node.attr):
                # the readable few are checked on the object when the read runs (underscore.py)
                raise forbidden(
                    f"attribute '{node.attr}' is not available: names starting with '_' are "
                    "internal", node)
        elif kind is ast.BinOp:
            node.gs_op = BINOPS[type(node.op)]
        elif kind is ast.Assign:
            only = node.targets[0] if len(node.targets) == 1 else None
            node.gs_name = only.id if isinstance(only, ast.Name) else None
        elif kind is ast.AugAssign:
            node.gs_op = INPLACE[type(node.op)]
        elif kind is ast.UnaryOp:
            node.gs_op = UNARY[type(node.op)]
        elif kind is ast.Compare:
            node.gs_ops = [COMPARE[type(op)] for op in node.ops]
        elif kind is ast.Call:
            node.gs_simple = not node.keywords and not any(
                isinstance(a, ast.Starred) for a in node.args)
        elif kind in (ast.FunctionDef, ast.Lambda):
            self._check_function(node, parent)
        elif kind is ast.ClassDef:
            if node.keywords:
                raise forbidden("class keywords (metaclass=...) are not supported", node)
            self._check_name(node.name, node)
        elif kind is ast.Import:
            for alias in node.names:
                self._check_import(alias.name, node)
                if alias.asname:
                    self._check_name(alias.asname, node)
        elif kind is ast.ImportFrom:
            if node.level or node.module is None:
                raise forbidden("relative imports are not available", node)
            self._check_import(node.module, node)
            for alias in node.names:
                if alias.name == "*":
                    raise forbidden("'import *' is not available: import the names you use", node)
                if alias.name.startswith("_"):
                    if alias.name not in IMPORTABLE_UNDERSCORE_NAMES.get(node.module, ()):
                        raise forbidden(f"'{alias.name}' is internal and cannot be imported",
                                        node)
                    if alias.asname is None:
                        continue  # bound under its own name (``__version__``), as imported
                self._check_name(alias.asname or alias.name, node)
        elif kind in (ast.Global, ast.Nonlocal):
            for name in node.names:
                self._check_name(name, node)
        elif kind is ast.ExceptHandler:
            if node.name:
                self._check_name(node.name, node)
        elif kind is ast.arg:
            self._check_name(node.arg, node)
        elif kind is ast.keyword:
            if node.arg is not None and _is_dunder(node.arg):
                raise forbidden(f"the keyword '{node.arg}' is not available", node.value)

    @staticmethod
    def _check_name(name: str, node) -> None:
        if _is_dunder(name):
            raise forbidden(f"the name '{name}' is not available", node)

    @staticmethod
    def _check_import(name: str, node) -> None:
        if name not in IMPORTABLE and engine_module(name) is None:
            raise forbidden(import_refusal(name), node)

    def _check_function(self, node, parent) -> None:
        if isinstance(node, ast.FunctionDef) and _is_dunder(node.name):
            # d2l's ``@d2l.add_to_class(ResNet) def __init__(self, ...)`` defines a class's
            # method outside its body: a decorated def may bear a name a class may define (the
            # decorator installs it: ``setattr`` allows such a name on the script's classes only)
            in_class = isinstance(parent, ast.ClassDef) or bool(node.decorator_list)
            if not in_class or node.name not in CLASS_DUNDERS:
                allowed = ", ".join(sorted(CLASS_DUNDERS))
                raise forbidden(
                    f"defining '{node.name}' is not available (a class may define {allowed})",
                    node)
