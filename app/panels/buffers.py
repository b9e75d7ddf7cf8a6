"""``GradientBufferPanel``: every ``.grad`` buffer, how it got its value, and its heatmap.

Rows come from ``panels_model.buffer_rows``: grouped by module, each with its shape, its grad
(None, zeros and values drawn differently), its norm and the change since the last pause. A row's
children are its contributions, one per backward() call, and under each the paths that met at a
fan-in; after ``zero_grad()`` the note says what None and zeros mean to an optimizer.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QFont
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem, QWidget

from engine.session import panels_model as pm
from engine.session.panels_model.buffers import buffer_counts
from engine.session.state import Snapshot

from ..words import counted
from .base import Panel
from .csv_export import save_csv
from .heatmaps import Heatmaps
from .hub import panels_hub
from .point import PointView, point_view
from .tones import mono_font, tone
from .widgets import header, note_label, stacked, vbox

COLUMNS = ("name", "shape", ".grad", "norm", "change since last pause")
TEXT_ITEMS = 4  # numbers shown per array in a cell; the tooltip and CSV have them all
ROLE_NAME = Qt.ItemDataRole.UserRole  # the display name a row stands for
LAZY_ROWS = 400  # past this many buffers, a group's rows are made when it is opened


class GradientBufferPanel(Panel):
    """The gradient buffers at the point the session shows.

    Signals: ``tensor_selected(name)`` when the user clicks a row or a heatmap.
    """

    tensor_selected = Signal(str)

    def __init__(self, controller, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("GradientBufferPanel")
        self.controller = controller
        self.hub = panels_hub(controller)
        self.hub.acquire()
        self._rows: list[pm.BufferRow] = []
        # The point to draw while the panel is hidden behind another tab (drawn when shown or
        # read: a 100,000-node replay's 50,000 rows took most of each step), and what was
        # shown at the point before it, for "changed": its rows, or its snapshot.
        self._waiting: PointView | None = None
        self._before: list | Snapshot = []

        layout = vbox(self)
        top, self.status = header("Gradient buffers", self.export_csv)
        layout.addLayout(top)
        self.note = note_label(pm.ZERO_GRAD_NOTE)
        self.note.setVisible(False)
        layout.addWidget(self.note)

        self.tree = QTreeWidget()
        self.tree.setColumnCount(len(COLUMNS))
        self.tree.setHeaderLabels(COLUMNS)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(False)
        self.tree.itemClicked.connect(self._item_clicked)
        self.tree.itemExpanded.connect(self._group_opened)
        self._pending: dict[int, list] = {}  # id(group item) -> its rows, made when opened
        self.heatmaps = Heatmaps()
        self.heatmaps.clicked.connect(self._select)
        layout.addWidget(stacked(self.tree, self.heatmaps, (300, 160)))

        self.connect_signals()
        self.refresh()

    # ------------------------------------------------------------------ drawing
    @property
    def rows(self) -> list[pm.BufferRow]:
        """The rows at the point the session shows (made now if the panel put them off)."""
        if self._waiting is not None and point_view(self.controller, self.hub) is not None:
            self._draw_waiting()
        return self._rows

    def refresh(self, *_args) -> None:
        view = self.new_point()
        if view is None:
            return  # running, or the same pause published again: "changed" must survive it
        if self._waiting is not None:  # a point never drawn: "changed" is since that one
            self._before = self._waiting.snapshot
        self._waiting = view
        if self.in_view():
            self._draw_waiting()
            return
        self._show_status(*buffer_counts(view.snapshot, self._before))

    def came_into_view(self, *_args) -> None:
        if self.hub is not None and self._waiting is not None and self.in_view() and \
                point_view(self.controller, self.hub) is not None:
            self._draw_waiting()  # at rest: the recorder tells the waiting point's story

    def _draw_waiting(self) -> None:
        view, self._waiting = self._waiting, None
        if view is None or self.hub is None:
            return
        self._rows = pm.buffer_rows(view.snapshot, view.live, self.hub.recorder, self._before)
        self._before = self._rows
        self._fill_tree()
        reset = [r for r in self._rows if r.note.startswith(("None after", "zeros after"))]
        self.note.setVisible(bool(reset))
        self._show_status(len(self._rows), sum(r.changed for r in self._rows))
        level = pm.heatmap_level(r.grad for r in self._rows)
        self.heatmaps.show_arrays([(r.name, r.grad) for r in self._rows], level)
        self.heatmaps.setToolTip(f"one colour scale for all: −{level:.4g} … +{level:.4g}")

    def _show_status(self, buffers: int, changed: int) -> None:
        self.status.setText(f"{counted(buffers, 'buffer')}, {changed} changed" if buffers
                            else "no .grad buffers yet")

    def _fill_tree(self) -> None:
        selected = self.selected_name()
        self.tree.clear()
        self._pending = {}
        # A recorded real model has thousands of parameters: past LAZY_ROWS their rows are made
        # when the user opens their group, so a first paint does not wait on all of them.
        lazy = len(self._rows) > LAZY_ROWS
        groups: dict[str, QTreeWidgetItem] = {}
        members: dict[str, list] = {}
        for row in self._rows:
            if row.group not in groups:
                parent = QTreeWidgetItem([row.group or "script names"])
                font = parent.font(0)
                font.setBold(True)
                parent.setFont(0, font)
                self.tree.addTopLevelItem(parent)
                groups[row.group] = parent
                members[row.group] = []
            members[row.group].append(row)
        for group, parent in groups.items():
            rows = members[group]
            if lazy and not any(r.name == selected for r in rows):
                parent.setChildIndicatorPolicy(QTreeWidgetItem.ChildIndicatorPolicy.ShowIndicator)
                parent.setText(1, counted(len(rows), "buffer"))
                self._pending[id(parent)] = rows
            else:
                self._add_rows(parent, rows, selected)
                parent.setExpanded(True)
        for i in range(len(COLUMNS)):
            self.tree.resizeColumnToContents(i)
            # long arrays must not push the norm and the change off the panel
            self.tree.setColumnWidth(i, min(self.tree.columnWidth(i), 280))

    def _group_opened(self, parent: QTreeWidgetItem) -> None:
        rows = self._pending.pop(id(parent), None)
        if rows is not None:
            parent.setText(1, "")
            self._add_rows(parent, rows, self.selected_name())

    def _add_rows(self, parent: QTreeWidgetItem, rows: list, selected: str | None) -> None:
        mono = mono_font()
        for row in rows:
            item = QTreeWidgetItem(self._cells(row))
            item.setData(0, ROLE_NAME, row.name)
            item.setFont(2, mono)
            item.setToolTip(2, f"{row.note}\n{pm.format_array(row.grad, 64)}")
            self._style(item, row, self)
            parent.addChild(item)
            for c in row.contributions:
                child = QTreeWidgetItem([f"+ {c.label}", "", pm.format_array(c.value, TEXT_ITEMS),
                                         "", ""])
                child.setFont(2, mono)
                child.setData(0, ROLE_NAME, row.name)
                item.addChild(child)
                for source, g in c.paths:
                    path = QTreeWidgetItem([f"  via {source}", "", pm.format_array(g, TEXT_ITEMS),
                                            "", ""])
                    path.setFont(2, mono)
                    path.setData(0, ROLE_NAME, row.name)
                    child.addChild(path)
                child.setExpanded(bool(c.paths))
            if row.contributions:
                total = QTreeWidgetItem([f"= {row.note}", "", "", "", ""])
                total.setForeground(0, QBrush(tone(self, "none")))
                total.setData(0, ROLE_NAME, row.name)
                item.addChild(total)
                total.setFirstColumnSpanned(True)  # the note reads as a sentence
            item.setExpanded(len(row.contributions) > 1 or any(c.paths for c in
                                                                 row.contributions))
            if row.name == selected:
                self.tree.setCurrentItem(item)

    @staticmethod
    def _cells(row: pm.BufferRow) -> list[str]:
        shape = "×".join(map(str, row.shape)) or "scalar"
        if row.state == "none":
            grad = "None"
        elif row.state == "zeros":
            grad = f"zeros  {pm.format_array(row.grad, TEXT_ITEMS)}"
        else:
            grad = pm.format_array(row.grad, TEXT_ITEMS)
        norm = "" if row.norm is None else f"{row.norm:.4g}"
        change = ""
        if row.changed:
            if row.delta is not None:
                change = f"Δ {pm.format_array(row.delta, TEXT_ITEMS)}"
            else:
                change = "→ None" if row.grad is None else "new"
        leaf = "" if row.kind == "leaf" else "  (retained)"
        return [row.name.rpartition(".")[2] + leaf if row.group else row.name + leaf,
                shape, grad, norm, change]

    @staticmethod
    def _style(item: QTreeWidgetItem, row: pm.BufferRow, widget: QWidget) -> None:
        if row.state != "values":  # values keep the theme's text colour
            item.setForeground(2, QBrush(tone(widget, row.state)))
        if row.state == "none":
            font = item.font(2)
            font.setItalic(True)
            item.setFont(2, font)
        if row.changed:
            for col in range(len(COLUMNS)):
                item.setBackground(col, QBrush(tone(widget, "changed")))
            bold = QFont(item.font(0))
            bold.setBold(True)
            item.setFont(4, bold)

    # ------------------------------------------------------------------ reading (tests, CSV)
    def row(self, name: str) -> pm.BufferRow | None:
        return next((r for r in self.rows if r.name == name), None)

    def item(self, name: str) -> QTreeWidgetItem | None:
        for i in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(i)
            if any(r.name == name for r in self._pending.get(id(group), ())):
                group.setExpanded(True)  # made when opened (_group_opened)
            for j in range(group.childCount()):
                child = group.child(j)
                if child.data(0, ROLE_NAME) == name:
                    return child
        return None

    def selected_name(self) -> str | None:
        item = self.tree.currentItem()
        return None if item is None else item.data(0, ROLE_NAME)

    def csv_text(self) -> str:
        return pm.csv_text(*pm.buffer_table(self.rows))

    def export_csv(self) -> None:
        save_csv(self, self.csv_text(), "gradient_buffers.csv")

    # ------------------------------------------------------------------ selection
    def _item_clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        name = item.data(0, ROLE_NAME)
        if name:
            self._select(name)

    def _select(self, name: str) -> None:
        self.tensor_selected.emit(name)
        self.hub.select(name)

