"""What the builder's forms share: a field with the reason it is refused right under it, the
preview of the line a form will write, and the red that says "not like this" in both themes.

``FieldForm`` is the one helper: ``add_field(key, label, widget)`` puts a labelled field in a
form layout with an error label beneath it; ``set_errors({key: reason})`` shows each reason
under its field (reasons for keys without a field go to a line at the bottom) and hides the
others. Tests read ``error(key)``: exactly the text the user reads.
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from engine.builder.edits import BuildError

# Error red: the palette's BrightText is the theme's red (#d1242f light, #ff7b72 dark); this is
# the fallback for a palette that does not set it.
_FALLBACK_RED = "#e5534b"


def error_colour(widget: QWidget) -> str:
    """The red errors are written in, readable on ``widget``'s background in either theme."""
    pal = QApplication.palette(widget)
    colour = pal.color(QPalette.ColorRole.BrightText)
    base = pal.color(QPalette.ColorRole.Base)
    # Qt's default BrightText is white: useless as a red. Take ours then.
    if colour.red() < 150 or abs(colour.lightness() - base.lightness()) < 60 \
            or colour.red() - max(colour.green(), colour.blue()) < 60:
        return _FALLBACK_RED
    return colour.name()


def mono_font() -> QFont:
    font = QFont("monospace")
    font.setStyleHint(QFont.StyleHint.Monospace)
    return font


def error_label() -> QLabel:
    """A wrapped, selectable label in the error red; hidden while it has nothing to say."""
    label = ErrorLabel()
    return label


class ErrorLabel(QLabel):
    """A label in the theme's error red; follows theme changes; hidden when empty."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("buildError")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)
        self._recolour()
        self.hide()

    _colour = ""

    def _recolour(self) -> None:
        colour = error_colour(self)
        if colour != self._colour:  # a style sheet changes the palette: no loop
            self._colour = colour
            self.setStyleSheet(f"QLabel#buildError {{ color: {colour}; }}")

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() in (event.Type.PaletteChange, event.Type.ApplicationPaletteChange,
                            event.Type.StyleChange):
            self._recolour()

    def say(self, text: str | None) -> None:
        self.setText(text or "")
        self.setToolTip(text or "")
        self.setVisible(bool(text))


class PreviewLabel(QLabel):
    """The code a form will write, in the editor's font, framed like a snippet of the editor."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("buildPreview")
        self.setFont(mono_font())
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.Base)
        self.setForegroundRole(QPalette.ColorRole.Text)
        self.setMargin(6)
        self.setWordWrap(False)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)


class FieldForm(QWidget):
    """Labelled fields, each with its reason beneath it; see the module's docstring."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(4)
        self.layout_ = QFormLayout()
        self.layout_.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.layout_.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.layout_.setVerticalSpacing(6)
        outer.addLayout(self.layout_)
        self.other_errors = error_label()  # reasons for keys without their own field
        outer.addWidget(self.other_errors)
        self.fields: dict[str, QWidget] = {}
        self.labels: dict[str, QLabel] = {}
        self.errors: dict[str, ErrorLabel] = {}
        self._hosts: dict[str, QWidget] = {}
        self._shown: dict[str, str] = {}

    def add_field(self, key: str, label: str, widget: QWidget, *,
                  tooltip: str | None = None, before: str | None = None) -> QWidget:
        """Add ``widget`` as field ``key``, labelled ``label``, with an error label under it
        (at the end, or just above field ``before``)."""
        host = QWidget(self)
        box = QVBoxLayout(host)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(2)
        box.addWidget(widget)
        err = error_label()
        box.addWidget(err)
        name = QLabel(label, self)
        name.setBuddy(widget)
        if tooltip:
            name.setToolTip(tooltip)
            widget.setToolTip(tooltip)
        if before is not None and before in self._hosts:
            row, _role = self.layout_.getWidgetPosition(self._hosts[before])
            self.layout_.insertRow(row, name, host)
        else:
            self.layout_.addRow(name, host)
        self.fields[key] = widget
        self.labels[key] = name
        self.errors[key] = err
        self._hosts[key] = host
        return widget

    def replace_field(self, key: str, widget: QWidget) -> QWidget:
        """Put ``widget`` in place of field ``key``'s editor (the old one is deleted)."""
        old = self.fields[key]
        host = self._hosts[key]
        host.layout().replaceWidget(old, widget)
        old.hide()
        old.deleteLater()
        self.fields[key] = widget
        self.labels[key].setBuddy(widget)
        return widget

    def remove_field(self, key: str) -> None:
        """Take field ``key`` out of the form (its widgets are deleted)."""
        host = self._hosts.pop(key)
        self.layout_.removeRow(host)  # deletes the label, the host, the editor, the error label
        for table in (self.fields, self.labels, self.errors):
            table.pop(key, None)
        self._shown.pop(key, None)

    def _subforms(self) -> list["FieldForm"]:
        return [w for w in self.fields.values() if isinstance(w, FieldForm)]

    def keys(self) -> set[str]:
        """Every field key, those of nested forms included."""
        out = set(self.fields)
        for sub in self._subforms():
            out |= sub.keys()
        return out

    def set_field_visible(self, key: str, visible: bool) -> None:
        self.layout_.setRowVisible(self._hosts[key], visible)

    def field_visible(self, key: str) -> bool:
        return self._hosts[key].isVisibleTo(self) if self.isVisible() else \
            not self._hosts[key].isHidden()

    def set_errors(self, errors: Mapping[str, str]) -> None:
        """Show each reason under its field; the rest (keys without a field) at the bottom."""
        self._shown = dict(errors)
        others = []
        nested = set()
        for sub in self._subforms():  # a nested form (an op's parameters...) shows its own
            mine = {k: v for k, v in errors.items() if k in sub.keys()}
            sub.set_errors(mine)
            nested |= set(mine)
        for key, label in self.errors.items():
            label.say(errors.get(key))
        for key, reason in errors.items():
            if key not in self.errors and key not in nested:
                others.append(f"{key}: {reason}" if key else reason)
        self.other_errors.say("\n".join(others))

    def error(self, key: str) -> str:
        """The reason shown for ``key`` ("" when none): what the user reads under the field."""
        label = self.errors.get(key)
        if label is not None:
            return label.text() if not label.isHidden() else ""
        for sub in self._subforms():
            if key in sub.keys():
                return sub.error(key)
        return self._shown.get(key, "")

    def shown_errors(self) -> dict[str, str]:
        return dict(self._shown)


class FormDialog(QDialog):
    """A builder form: fields with their reasons, the preview of the code, OK and Cancel.

    Subclasses fill ``self.fields`` (a ``FieldForm``) in ``__init__``, connect every editor's
    change to ``revalidate``, implement ``form()`` and name the engine's three rules for it:
    ``form_errors(form, workspace)`` ({field: reason}), ``form_statement(form, source)`` (the
    preview) and ``form_edit(source, workspace, form)`` (the ``CodeEdit``), or override
    ``errors()``, ``preview_text()`` and ``code_edit()``. OK stays disabled while any field is
    refused; when accepted the dialog's ``accepted_edit`` holds the ``CodeEdit`` to apply.
    """

    form_errors = None
    form_statement = None
    form_edit = None

    def __init__(self, title: str, intro: str, workspace, source: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.source = source or ""
        self.setWindowTitle(title)
        self.setModal(True)
        self.accepted_edit = None
        layout = QVBoxLayout(self)
        layout.setSpacing(8)
        if intro:
            note = QLabel(intro)
            note.setWordWrap(True)
            note.setForegroundRole(QPalette.ColorRole.PlaceholderText)
            layout.addWidget(note)
        self.fields = FieldForm(self)
        layout.addWidget(self.fields)
        layout.addWidget(QLabel("It writes:"))
        self.preview = PreviewLabel(self)
        self.preview.setObjectName("formPreview")
        self.preview.setWordWrap(False)
        layout.addWidget(self.preview)
        layout.addStretch(1)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText("Write it")
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.setMinimumWidth(460)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        # Typing starts in the first field (its suggestion selected, so typing replaces it):
        # never on the default button, where a space would write the line unasked.
        for widget in self.fields.fields.values():
            if widget.isVisibleTo(self) and widget.isEnabled():
                widget.setFocus(Qt.FocusReason.OtherFocusReason)
                select_all = getattr(widget, "selectAll", None)
                if callable(select_all):
                    select_all()
                break

    def form(self):
        raise NotImplementedError

    def errors(self) -> dict:
        return type(self).form_errors(self.form(), self.workspace)

    def preview_text(self) -> str:
        return type(self).form_statement(self.form(), self.source)

    def code_edit(self):
        return type(self).form_edit(self.source, self.workspace, self.form())

    def revalidate(self, *_args) -> None:
        """Re-check every field: reasons under the bad ones, OK only when none is refused."""
        try:
            errors = dict(self.errors())
        except Exception as exc:
            errors = {"": f"{type(exc).__name__}: {exc}"}
        self.fields.set_errors(errors)
        self.ok_button.setEnabled(not errors)
        text = ""
        if not errors:
            try:
                text = self.preview_text()
            except Exception as exc:
                self.fields.set_errors({"": str(exc)})
                self.ok_button.setEnabled(False)
        self.preview.setText(text or "(fix the fields marked in red)")
        self.preview.setEnabled(bool(text))
        self.adjustSize()

    def _accept(self) -> None:
        if not self.ok_button.isEnabled():
            return
        try:
            edit = self.code_edit()
        except BuildError as exc:
            errors = self.fields.shown_errors()
            errors[exc.field] = exc.message
            self.fields.set_errors(errors)
            self.ok_button.setEnabled(False)
            return
        self.accepted_edit = edit
        self.accept()


def choice_combo(values, labels=None) -> QComboBox:
    """A combo box of ``values`` (shown as ``labels[value]`` when given; ``currentData()`` is
    the value)."""
    combo = QComboBox()
    for value in values:
        combo.addItem(labels[value] if labels is not None else str(value), value)
    return combo
