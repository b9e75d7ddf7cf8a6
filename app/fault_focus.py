"""Points the user at what went wrong: the graph node selected (and so the inspector filled)
when a data breakpoint names a culprit or a runtime error ends the run.

``error_node`` (no Qt) finds a runtime error's node: in a backward pass that had begun, the
node it was about to run (the gradient had reached it, it had not run); else the first tensor
the failing statement reads. ``FaultFocus`` selects the node once per pause or error, trying
again with the next graph while the node is not drawn yet (the worker's state and graph may
arrive apart).
"""

from __future__ import annotations

import ast

from engine.graph.focus import culprit_node, last_executed
from engine.session.events import Status


def statement_at(source: str, line: int) -> ast.stmt | None:
    """The innermost simple statement of ``source`` that spans ``line`` (None: unparsable)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    found = None
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and node.lineno <= line <= (node.end_lineno or node.lineno):
            if not hasattr(node, "body"):  # a loop or a def spans its body: not the statement
                found = node
    return found


def _dotted(node) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base is not None else None
    return None


def read_names(statement: ast.stmt) -> list[str]:
    """The names (and dotted names: ``model.weight``) ``statement`` reads, in source order."""
    found = []
    for node in ast.walk(statement):
        if isinstance(node, ast.Name | ast.Attribute) and isinstance(node.ctx, ast.Load):
            name = _dotted(node)
            if name is not None:
                found.append((node.lineno, node.col_offset, name))
    return [name for *_, name in sorted(found)]


def _runs_backward(statement: ast.stmt) -> bool:
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute | ast.Name)
               and (getattr(node.func, "attr", None) or getattr(node.func, "id", None))
               in ("backward", "grad")
               for node in ast.walk(statement))


def _next_to_run(graph) -> str | None:
    """The backward node whose gradient had arrived (a node it feeds ran) but that had not
    run: where a pass that failed midway failed."""
    for node_id, attrs in graph.nodes(data=True):
        if attrs.get("kind") == "tensor" or attrs.get("executed_index") is not None:
            continue
        if any(graph.nodes[s].get("executed_index") is not None
               for s in graph.successors(node_id)):
            return node_id
    return None


def error_node(graph, line: int | None, source: str) -> str | None:
    """The node of ``graph`` a runtime error at ``line`` of ``source`` points at, or None."""
    statement = statement_at(source, line) if line is not None else None
    if graph is None or statement is None:
        return None
    if _runs_backward(statement):
        node = _next_to_run(graph) or last_executed(graph)
        if node is not None:
            return node
    return next((f"t:{name}" for name in read_names(statement) if f"t:{name}" in graph),
                None)


class FaultFocus:
    """Selects the culprit of the window's pause or error in ``window.graph_view``."""

    def __init__(self, window) -> None:
        self.window = window
        self._shown = None  # the Paused or Error event whose node was selected

    def show(self, snapshot, graph) -> None:
        if graph is None:
            return
        fault, node = None, None
        if snapshot.status == Status.PAUSED and snapshot.pause is not None:
            fault = snapshot.pause
            if fault is not self._shown:
                node = culprit_node(graph, getattr(fault, "culprits", ()))
        elif snapshot.status == Status.FAILED and snapshot.error is not None:
            fault = snapshot.error
            if fault is not self._shown:
                error = fault.error
                node = error_node(graph, getattr(error, "line", None),
                                  self.window.controller.source)
        if node is not None and self.window.graph_view.select(node):
            self._shown = fault
            self.window.docks["inspector"].raise_()
