"""The tree walker's dispatch tables: ``{ast node class: handler}``, by the handlers' names.

``ExpressionsMixin._ev_binop`` handles ``ast.BinOp`` and ``StatementsMixin._ex_importfrom``
``ast.ImportFrom``: a handler is named after its node class, lower-cased, behind the mixin's
prefix. A node class with no handler is not in the table (the checker refuses what the walker
cannot run before it runs).
"""

from __future__ import annotations

import ast


def handler_table(mixin: type, prefix: str) -> dict:
    """``{ast class: mixin.<prefix><class name lower-cased>}`` for each such function of mixin."""
    classes = {name.lower(): node for name, node in vars(ast).items()
               if isinstance(node, type) and issubclass(node, (ast.expr, ast.stmt))
               and node not in (ast.expr, ast.stmt)}  # ast.Expr, not the base ast.expr
    table = {}
    for name, fn in vars(mixin).items():
        if name.startswith(prefix) and callable(fn):
            table[classes[name[len(prefix):]]] = fn
    return table
