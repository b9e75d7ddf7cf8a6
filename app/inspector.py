"""The inspector: everything about the selected tensor or node, in words and numbers.

The graph model provides the facts (flags, arrays, the edges' gradients); this panel phrases them.
``facts`` holds exactly the text shown per field, so tests read what the user reads.
"""

from __future__ import annotations

import ast
import html
from collections.abc import Callable
from functools import lru_cache

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from engine.tensor_format import format_values

from .graph_items import format_array, shape_text
from .vjp_notes import vjp_note

FULL_VALUES = 64  # arrays up to this size are shown in full in the text; larger ones summarised


def array_text(array) -> str:
    """An array as the inspector writes it: as PyTorch prints its values (``[2., 4., 6.]``,
    ``[ 0.7440,  1.5210]``), lines of at most 48 columns, summarised past ``FULL_VALUES``; None
    stays None. The graph's labels use the same formatter (``graph_items.format_array``)."""
    if array is None:
        return "None"
    return format_values(np.asarray(array), 0, threshold=FULL_VALUES, linewidth=48)


class MatrixView(QTabWidget):
    """A 2-D array as a table and as a heatmap (pyqtgraph's ImageItem, built on first use)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("matrixView")
        self.table = QTableWidget(self)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.addTab(self.table, "Table")
        self._heat_host = QWidget(self)
        QVBoxLayout(self._heat_host).setContentsMargins(0, 0, 0, 0)
        self.addTab(self._heat_host, "Heatmap")
        self.plot = None  # pyqtgraph widget, created lazily (keeps the cold start fast)
        self.image = None
        self.matrix = None
        self.currentChanged.connect(lambda _i: self._draw_heatmap())

    def show_matrix(self, array) -> None:
        a = np.asarray(array)
        if a.ndim == 1:
            a = a.reshape(1, -1)
        elif a.ndim > 2:
            a = a.reshape(-1, a.shape[-1])
        rows, cols = min(a.shape[0], 200), min(a.shape[1], 200)
        self.matrix = a
        self.table.setUpdatesEnabled(False)
        self.table.setRowCount(rows)
        self.table.setColumnCount(cols)
        for r in range(rows):
            for c in range(cols):
                item = QTableWidgetItem(f"{a[r, c]:.4g}" if a.dtype.kind == "f" else str(a[r, c]))
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        self.table.setUpdatesEnabled(True)
        self._draw_heatmap()

    def _draw_heatmap(self) -> None:
        if self.currentWidget() is not self._heat_host or self.matrix is None:
            return
        import pyqtgraph as pg

        if self.plot is None:
            self.plot = pg.PlotWidget(parent=self._heat_host)
            self.plot.setObjectName("heatmapPlot")
            self.plot.setBackground(self.palette().color(self.backgroundRole()))
            self.plot.invertY(True)
            self.plot.setAspectLocked(False)
            self.image = pg.ImageItem(axisOrder="row-major")
            self.plot.addItem(self.image)
            self._heat_host.layout().addWidget(self.plot)
        data = np.asarray(self.matrix, dtype=np.float64)
        finite = data[np.isfinite(data)]
        # A symmetric scale centred on 0: the sign of a gradient is what matters.
        bound = float(np.abs(finite).max()) if finite.size else 1.0
        bound = bound or 1.0
        self.image.setImage(data, levels=(-bound, bound))
        self.image.setColorMap(pg.colormap.get("CET-D1"))
        self.plot.autoRange()

    def refresh_theme(self) -> None:
        if self.plot is not None:
            self.plot.setBackground(self.palette().color(self.backgroundRole()))

    def dispose(self) -> None:
        """Delete the pyqtgraph widget now: one alive at interpreter exit can crash PySide6."""
        if self.plot is not None:
            self.plot.close()
            self.plot.setParent(None)
            self.plot.deleteLater()
            self.plot = None
            self.image = None


class InspectorPanel(QWidget):
    """Shows the facts of one graph node; ``show_node(graph, node_id)``."""

    def __init__(self, parent: QWidget | None = None,
                 source_of: Callable[[], str] | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("inspector")
        # The script the session runs (for the Variable note); by default the parent window's.
        self.source_of = source_of or (
            lambda: getattr(getattr(parent, "controller", None), "source", "") or "")
        self.facts: dict[str, str] = {}
        self.node_id = ""
        self.graph = None
        # The backward pass's node count while paused in it (the status bar's "step 3 of 4"):
        # the graph counts only the steps run so far. None: the graph's count.
        self.backward_total: int | None = None
        self.text = QTextBrowser(self)
        self.text.setObjectName("inspectorText")
        self.text.setOpenLinks(False)
        self.matrix_choice = QComboBox(self)
        self.matrix_choice.addItems(["value", "grad"])
        self.matrix_choice.currentTextChanged.connect(lambda _t: self._show_matrix())
        self.matrix = MatrixView(self)
        self._matrix_box = QWidget(self)
        box = QVBoxLayout(self._matrix_box)
        box.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addWidget(QLabel("Matrix:"))
        row.addWidget(self.matrix_choice)
        row.addStretch(1)
        box.addLayout(row)
        box.addWidget(self.matrix, 1)
        self._matrix_box.hide()
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.text)
        split.addWidget(self._matrix_box)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        self._split = split
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)
        self.show_nothing()

    def show_nothing(self) -> None:
        self.node_id = ""
        self.facts = {}
        self.text.setHtml(
            "<p style='color:gray'>Click a tensor or a node in the graph to see its value, its "
            "<code>.grad</code>, and why it is (or is not) a leaf.</p>")
        self._matrix_box.hide()

    # ------------------------------------------------------------------------------ content
    def show_node(self, graph, node_id: str) -> None:
        """Describe ``node_id`` of ``graph`` (engine.graph model)."""
        self.graph = graph
        if graph is None or not node_id or node_id not in graph:
            self.show_nothing()
            return
        self.node_id = node_id
        attrs = graph.nodes[node_id]
        kind = attrs.get("kind")
        if kind == "tensor":
            rows, title = self._tensor_rows(graph, node_id, attrs)
        elif kind == "group":
            rows, title = self._group_rows(attrs), attrs.get("label", node_id)
        else:
            rows, title = self._function_rows(graph, node_id, attrs)
        self.facts = {key: plain for key, plain, _html in rows}
        body = "".join(
            f"<tr><td nowrap style='padding:2px 10px 2px 0;vertical-align:top'>"
            f"<b>{html.escape(key)}</b></td><td style='padding:2px 0'>{cell}</td></tr>"
            for key, _plain, cell in rows)
        self.text.setHtml(f"<h3 style='margin:4px 0'>{html.escape(title)}</h3>"
                          f"<table cellspacing='0' width='100%'>{body}</table>")
        self._show_matrix()

    def _tensor_rows(self, graph, node_id, a) -> tuple[list, str]:
        name = a.get("name") or a.get("label") or "this tensor"
        producer = self._producer(graph, node_id)
        grad = a.get("grad")
        rows = []
        rows.append(_row("value", array_text(a.get("value")), mono=True))
        rows.append(self._grad_row(a, name))
        rows.append(_row("dtype", str(a.get("dtype"))))
        made = a.get("is_leaf") and next(
            (line for n in [name, *(a.get("aliases") or ())]
             if (line := variable_bindings(self.source_of()).get(n))), None)
        if made:  # under dtype: it says what type the tensor is
            rows.append(_row("Variable", variable_note(name, made)))
        rows.append(_row("shape", shape_text(a.get("shape"))))
        rows.append(_row("requires_grad", str(bool(a.get("requires_grad")))))
        why = leaf_explanation(name, a, producer)
        rows.append(("is_leaf", f"{bool(a.get('is_leaf'))}: {why}",
                     f"<b>{bool(a.get('is_leaf'))}</b><br><span>{html.escape(why)}</span>"))
        rows.append(_row("retains_grad", str(bool(a.get("retains_grad")))))
        rows.append(_row("grad_fn", f"<{producer}>" if producer else "None"))
        if a.get("version") is not None:
            rows.append(_row("version", str(a.get("version"))))
        if a.get("aliases"):
            rows.append(_row("also named", ", ".join(a["aliases"])))
        if a.get("group"):
            rows.append(_row("module", str(a["group"])))
        # The last backward: what arrived at this tensor (its grad flowed in from its consumers).
        if grad is not None and not a.get("is_leaf"):
            rows.append(_row("note", "the .grad shown is the total gradient of the backward root "
                                     "with respect to this tensor"))
        return rows, f"{name}  ·  tensor {shape_text(a.get('shape'))}"

    def _grad_row(self, a, name) -> tuple[str, str, str]:
        grad = a.get("grad")
        if grad is None:
            if not a.get("requires_grad"):
                why = "requires_grad=False: autograd never writes this tensor's .grad"
            elif not a.get("is_leaf") and not a.get("retains_grad"):
                why = (f"a non-leaf's .grad is not kept; call {name}.retain_grad() before "
                       "backward() to keep it")
            else:
                why = "no gradient buffer: backward() has not reached it yet, or zero_grad() " \
                      "set it to None"
            return ("grad", f"None ({why})",
                    f"<i style='color:#8c8c8c'>None</i> <span style='color:#8c8c8c'>— "
                    f"{html.escape(why)}</span>")
        g = np.asarray(grad)
        text = array_text(g)
        note = ""
        if g.size and not np.any(g):
            note = "all zeros: a buffer exists, filled with 0 (zero_grad(set_to_none=False))"
        elif not a.get("is_leaf") and a.get("retains_grad"):
            note = "kept because retain_grad() was called"
        plain = text + (f" ({note})" if note else "")
        cell = (f"<div style='white-space:pre-wrap;font-family:monospace;color:#c25400'>"
                f"{html.escape(text)}</div>")
        if note:
            cell += f"<div style='color:#8c8c8c'>{html.escape(note)}</div>"
        return "grad", plain, cell

    def _function_rows(self, graph, node_id, a) -> tuple[list, str]:
        label = a.get("label") or node_id
        rows = [_row("node", a.get("node_name") or label)]
        if a.get("kind") == "accumulate":
            leaf = a.get("variable")
            leaf_name = graph.nodes[leaf].get("name") if leaf in graph else None
            rows.append(_row("writes", f"{leaf_name or 'a leaf'}.grad"))
        if a.get("sequence_nr") is not None:
            rows.append(_row("sequence_nr", str(a["sequence_nr"])))
        inputs = [graph.nodes[s].get("label", s) for s in graph.predecessors(node_id)]
        rows.append(_row("next_functions", ", ".join(inputs) if inputs else "(none)"))
        saved = a.get("saved") or {}
        if a.get("freed"):
            rows.append(_row("saved tensors", "freed: backward ran without retain_graph=True; "
                                              "a second backward through here raises"))
        elif saved:
            rows.append(_row("saved tensors", "; ".join(
                f"{role}: {shape_text(shape)} {dtype}" for role, (shape, dtype) in saved.items())))
        else:
            rows.append(_row("saved tensors", "none"))
        if a.get("executed"):
            total = self.backward_total or graph.graph.get("backward_steps")
            k = (a.get("executed_index") or 0) + 1
            rows.append(_row("last backward", f"ran as step {k}" + (f" of {total}" if total
                                                                      else "")))
            rows.extend(self._vjp_rows(graph, node_id, a))
        else:
            rows.append(_row("last backward", "not run yet"))
        what = "AccumulateGrad" if a.get("kind") == "accumulate" else "grad_fn node"
        return rows, f"{label}  ·  {what}"

    def _vjp_rows(self, graph, node_id, a) -> list:
        rows = []
        incoming = []
        for target in graph.successors(node_id):
            grad = graph.edges[node_id, target].get("grad")
            if grad is not None:
                incoming.append((graph.nodes[target].get("label", target), grad))
        if incoming:
            rows.append(_row("incoming grad", "; ".join(
                f"from {who}: {array_text(g)}" for who, g in incoming), mono=True))
        note = vjp_note(a.get("node_name") or a.get("label"))
        if note:
            rows.append(_row("local derivative", note))
        outgoing = []
        for source in graph.predecessors(node_id):
            edge = graph.edges[source, node_id]
            grad = edge.get("grad")
            who = graph.nodes[source].get("label", source)
            count = edge.get("count") or 1
            if grad is None:
                outgoing.append(f"to {who}: None")
            elif count > 1:
                parts = " + ".join(array_text(g) for g in edge.get("grads") or [] if g is not None)
                outgoing.append(f"to {who} ({count} uses, summed): {parts} = {array_text(grad)}")
            else:
                outgoing.append(f"to {who}: {array_text(grad)}")
        if outgoing:
            rows.append(_row("outgoing grads", "; ".join(outgoing), mono=True))
        return rows

    @staticmethod
    def _group_rows(a) -> list:
        if a.get("run"):  # a folded run of one op, or of a repeated block of several
            return [_row("repeats", f"{a.get('count')} × {' → '.join(a.get('unit') or ())}"),
                    _row("nodes", str(len(a.get("members") or ()))),
                    _row("hint", "double-click the box, or search for a node inside it, to "
                                 "see its nodes")]
        return [_row("module", str(a.get("group") or a.get("label"))),
                _row("nodes", str(len(a.get("members") or ()))),
                _row("hint", "double-click the box, or View → Unfold Module Groups, to see its "
                             "nodes")]

    @staticmethod
    def _producer(graph, node_id) -> str | None:
        for source in graph.predecessors(node_id):
            if graph.nodes[source].get("kind") == "function":
                return graph.nodes[source].get("label")
        return None

    def _show_matrix(self) -> None:
        a = self.graph.nodes[self.node_id] if self.graph is not None and self.node_id else {}
        if a.get("kind") != "tensor":
            self._matrix_box.hide()
            return
        array = a.get(self.matrix_choice.currentText())
        if array is None or np.ndim(array) < 2 or np.size(array) < 2:
            self._matrix_box.hide()
            return
        self._matrix_box.show()
        sizes = self._split.sizes()
        if sizes[1] < 120:  # a splitter gives a child shown late no room: share it
            total = max(sum(sizes), 400)
            self._split.setSizes([int(total * 0.5), total - int(total * 0.5)])
        self.matrix.show_matrix(array)

    def dispose(self) -> None:
        self.matrix.dispose()


def leaf_explanation(name: str, a: dict, producer: str | None) -> str:
    """Why a tensor is or is not a leaf, and what that means for its .grad."""
    if a.get("is_leaf"):
        if a.get("requires_grad"):
            return (f"{name} is a leaf: you created it (no recorded op made it) with "
                    "requires_grad=True, so backward() accumulates its gradient into "
                    f"{name}.grad through AccumulateGrad.")
        return (f"{name} is a leaf that does not require grad: autograd does not track it, "
                "so it never gets a .grad.")
    made_by = f"it was computed by {producer}" if producer else "it was computed by an op"
    if a.get("retains_grad"):
        return (f"{name} is not a leaf: {made_by}; its .grad is kept only because retain_grad() "
                "was called.")
    return (f"{name} is not a leaf: {made_by}. backward() passes a gradient through it but does "
            f"not keep it in {name}.grad (call {name}.retain_grad() before backward() for that).")


@lru_cache(maxsize=4)
def variable_bindings(source: str) -> dict[str, int]:
    """Name -> line of each assignment whose value is a ``Variable(...)`` call (``x = ...``,
    ``a, b = ...``, ``params = [...]``: ``params[0]``), as the graph names tensors."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}

    def is_variable(node) -> bool:
        return isinstance(node, ast.Call) and (
            getattr(node.func, "id", None) == "Variable"
            or getattr(node.func, "attr", None) == "Variable")

    found: dict[str, int] = {}

    def bind(target, value) -> None:
        if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)):
            for t, v in zip(target.elts, value.elts):
                bind(t, v)
        elif isinstance(value, (ast.Tuple, ast.List)) and isinstance(target, ast.Name):
            for i, v in enumerate(value.elts):
                if is_variable(v):
                    found.setdefault(f"{target.id}[{i}]", v.lineno)
        elif is_variable(value) and isinstance(target, (ast.Name, ast.Subscript, ast.Attribute)):
            found.setdefault(ast.unparse(target), value.lineno)

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                bind(target, node.value)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            bind(node.target, node.value)
    return found


def variable_note(name: str, line: int) -> str:
    """PyTorch's facts about ``Variable``, for a tensor the script made with it."""
    return (f"made by Variable(...) on line {line}, deprecated since PyTorch 0.4: "
            f"Variable(t) returns a plain Tensor, so {name} is a torch.Tensor; requires_grad= "
            f"works as on any tensor (torch.ones(2, 2, requires_grad=True)), and {name}.data is "
            "tensor.data: the same values, without the autograd history.")


def _row(key: str, plain: str, *, mono: bool = False) -> tuple[str, str, str]:
    escaped = html.escape(plain)
    # pre-wrap: a matrix keeps one row per line, as numpy prints it; long text still wraps.
    return key, plain, (f"<div style='white-space:pre-wrap;font-family:monospace'>{escaped}</div>"
                        if mono else escaped)


# Re-exported for the graph's short labels.
__all__ = ["InspectorPanel", "MatrixView", "array_text", "format_array", "leaf_explanation",
           "variable_bindings", "variable_note"]
