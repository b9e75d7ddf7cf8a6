"""``OptimizerPanel``: each optimizer's groups, hyper-parameters, per-parameter state and the
update rule of its last ``step()`` with every number filled in.

Rows come from ``panels_model.optimizer_rows``; the rule's numbers from ``update_rule``, which
re-evaluates the optimizer's documented rule on the recorded numbers and says whether it
reproduces what the optimizer did.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QFont
from PySide6.QtWidgets import QPlainTextEdit, QTreeWidget, QTreeWidgetItem, QWidget

from engine.session import panels_model as pm

from .base import Panel
from .csv_export import save_csv
from .hub import panels_hub
from .tones import mono_font, tone
from .widgets import header, note_label, stacked, vbox

COLUMNS = ("name", "value")
ROLE_NAME = Qt.ItemDataRole.UserRole


class OptimizerPanel(Panel):
    """Optimizer state and update rules at the point the session shows.

    Signals: ``tensor_selected(name)`` when the user clicks a parameter.
    """

    tensor_selected = Signal(str)
    lazy = True  # behind the inspector by default: its tree is rebuilt only when seen

    def __init__(self, controller, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("OptimizerPanel")
        self.controller = controller
        self.hub = panels_hub(controller)
        self.hub.acquire()
        self._groups: list[pm.GroupRows] = []
        self.at_step = False

        layout = vbox(self)
        top, self.status = header("Optimizer", self.export_csv)
        layout.addLayout(top)
        layout.addWidget(note_label(pm.STEP_NOTE))
        self.tree = QTreeWidget()
        self.tree.setColumnCount(len(COLUMNS))
        self.tree.setHeaderLabels(COLUMNS)
        self.tree.setWordWrap(True)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.tree.currentItemChanged.connect(self._current_changed)
        self.tree.itemClicked.connect(self._item_clicked)
        self.rule_view = QPlainTextEdit()
        self.rule_view.setReadOnly(True)
        self.rule_view.setFont(mono_font())
        # The right dock is narrow: the rule wraps instead of running off its edge.
        self.rule_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.rule_view.setPlaceholderText(
            "The update rule appears here once optimizer.step() has updated a parameter.")
        layout.addWidget(stacked(self.tree, self.rule_view, (220, 220)))
        self.connect_signals()
        self.refresh()

    # ------------------------------------------------------------------ drawing
    @property
    def groups(self) -> list[pm.GroupRows]:
        """The rows at the point the session shows (drawn now if the panel put them off)."""
        self.up_to_date()
        return self._groups

    def refresh(self, *_args) -> None:
        view = self.new_point()
        if view is None:
            return  # running, or the same pause published again
        self.at_step = "step" in view.markers
        self._groups = pm.optimizer_rows(view.snapshot, view.live, self.hub.recorder, self.at_step)
        self._fill_tree()
        if not self._groups:
            self.status.setText("no optimizer in the script yet")
        elif self.at_step:
            self.status.setText("optimizer.step() just ran: the rules below are its updates")
        else:
            self.status.setText("")
        self._show_rule(self.selected_name())

    def _fill_tree(self) -> None:
        selected = self.selected_name()
        self.tree.blockSignals(True)
        self.tree.clear()
        mono = mono_font()
        current = None
        for group in self._groups:
            top = QTreeWidgetItem([f"{group.optimizer_name}  ({group.kind}, group {group.index})",
                                   ", ".join(f"{k}={_short(v)}" for k, v in group.hyper
                                             if k in _SHOWN_HYPER)])
            bold = QFont(top.font(0))
            bold.setBold(True)
            top.setFont(0, bold)
            self.tree.addTopLevelItem(top)
            every = QTreeWidgetItem(["all hyper-parameters", ""])
            every.setForeground(0, QBrush(tone(self, "none")))
            top.addChild(every)
            for k, v in group.hyper:
                every.addChild(QTreeWidgetItem([k, _short(v)]))
            for p in group.params:
                grad = {"none": ".grad is None: step() skips it", "zeros": ".grad is all zeros",
                        "values": ".grad set"}[p.grad_state]
                item = QTreeWidgetItem([p.name, grad])
                item.setData(0, ROLE_NAME, p.name)
                if p.grad_state == "none":
                    item.setForeground(1, QBrush(tone(self, "none")))
                if p.at_step:
                    for col in range(len(COLUMNS)):
                        item.setBackground(col, QBrush(tone(self, "fresh")))
                top.addChild(item)
                if not p.state:
                    item.addChild(QTreeWidgetItem(["state", "{} (no state yet)"]))
                for key, value in p.state:
                    child = QTreeWidgetItem([f"state['{key}']", pm.format_array(value)])
                    child.setFont(1, mono)
                    child.setData(0, ROLE_NAME, p.name)
                    item.addChild(child)
                for label, value in p.bias_corrections:
                    child = QTreeWidgetItem([label, f"{value:.6g}"])
                    child.setFont(1, mono)
                    child.setData(0, ROLE_NAME, p.name)
                    item.addChild(child)
                item.setExpanded(True)
                if p.name == selected or (current is None and p.at_step):
                    current = item
            top.setExpanded(True)
        self.tree.resizeColumnToContents(0)
        self.tree.blockSignals(False)
        if current is not None:
            self.tree.setCurrentItem(current)

    def _show_rule(self, name: str | None) -> None:
        param = self.param(name) if name else None
        if param is None:
            param = next((p for g in self._groups for p in g.params if p.rule is not None), None)
        if param is None or param.rule is None:
            self.rule_view.setPlainText("")
            return
        rule = param.rule
        head = (f"{param.name}: update rule of optimizer.step() ({rule.optimizer})"
                + ("  ← just now" if param.at_step else "  (the last step so far)"))
        if rule.matches is None:  # a recording's last step: the value after it was not kept
            check = "the rule's result: the value after this step was not recorded"
        else:
            check = ("✓ reproduces the optimizer's update" if rule.matches else
                     "✗ the rule does not reproduce the optimizer's update: see the difference")
        lines = [head, "", *rule.equations, "", "with the numbers:", *rule.filled_in(), "",
                 f"parameter before: {pm.format_array(rule.before, 12)}",
                 f"grad (unchanged by step()): {pm.format_array(rule.grad, 12)}",
                 f"update Δ: {pm.format_array(rule.update, 12)}",
                 f"parameter after:  {pm.format_array(rule.after, 12)}", check]
        self.rule_view.setPlainText("\n".join(lines))

    # ------------------------------------------------------------------ reading
    def param(self, name: str | None) -> pm.ParamRow | None:
        return next((p for g in self.groups for p in g.params if p.name == name), None)

    def selected_name(self) -> str | None:
        item = self.tree.currentItem()
        return None if item is None else item.data(0, ROLE_NAME)

    def rule_text(self) -> str:
        self.up_to_date()
        return self.rule_view.toPlainText()

    def csv_text(self) -> str:
        return pm.csv_text(*pm.optimizer_table(self.groups))

    def export_csv(self) -> None:
        save_csv(self, self.csv_text(), "optimizer.csv")

    def _current_changed(self, item, _previous) -> None:
        self._show_rule(item.data(0, ROLE_NAME) if item is not None else None)

    def _item_clicked(self, item, _column) -> None:
        name = item.data(0, ROLE_NAME)
        if name:
            self.tensor_selected.emit(name)
            self.hub.select(name)


_SHOWN_HYPER = ("lr", "momentum", "betas", "weight_decay", "eps", "alpha", "nesterov")


def _short(value) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (np.ndarray, list)):
        return pm.format_array(value)
    return str(value)
