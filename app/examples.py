"""File → Examples: the gallery of teaching examples in resources/examples."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
)

from .icons import EXAMPLES


def example_files() -> list[Path]:
    return sorted(EXAMPLES.glob("*.gstep"))


def example_entries() -> list[tuple[Path, str, str]]:
    """(path, title, description) of every example that loads."""
    from engine.files import GraphFileError, load

    entries = []
    for path in example_files():
        try:
            gf = load(path)
        except GraphFileError:
            continue
        entries.append((path, gf.title or path.stem, gf.description))
    return entries


class ExamplesDialog(QDialog):
    """Pick an example: its title on the left, what it teaches on the right."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("examplesDialog")
        self.setWindowTitle("Examples")
        self.resize(760, 440)
        self.list = QListWidget(self)
        self.list.setObjectName("examplesList")
        self.description = QLabel(self)
        self.description.setWordWrap(True)
        self.description.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.description.setMinimumWidth(300)
        for path, title, description in example_entries():
            item = QListWidgetItem(title)
            item.setData(Qt.ItemDataRole.UserRole, str(path))
            item.setData(Qt.ItemDataRole.UserRole + 1, description)
            item.setToolTip(path.name)
            self.list.addItem(item)
        self.list.currentItemChanged.connect(self._show_description)
        self.list.itemActivated.connect(lambda _item: self.accept())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Open
                                   | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        row = QHBoxLayout()
        row.addWidget(self.list, 1)
        row.addWidget(self.description, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(buttons)
        if self.list.count():
            self.list.setCurrentRow(0)
        self.list.setFocus()

    def _show_description(self, item, _previous=None) -> None:
        if item is None:
            self.description.setText("")
            return
        description = item.data(Qt.ItemDataRole.UserRole + 1)
        self.description.setText(f"<h3>{item.text()}</h3><p>{description}</p>")

    def selected_path(self) -> str | None:
        item = self.list.currentItem()
        return item.data(Qt.ItemDataRole.UserRole) if item is not None else None
