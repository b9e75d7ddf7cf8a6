"""``TrainingLoopDialog``: wrap the script's forward pass in a training loop.

The preview shows the loop as it will be written and which of the script's lines move into it,
which the loop replaces (the script's own ``loss.backward()``) and which go after it
(``print(loss)``), from ``engine.builder.scaffolds.plan_training_loop``.
"""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit, QSpinBox, QWidget

from engine.builder import scaffolds as sc
from engine.builder.edits import BuildError
from engine.builder.names import suggest_name

from .form_widgets import FormDialog, PreviewLabel

MAX_ITERATIONS = 1_000_000


def loss_candidates(workspace) -> list[str]:
    """Scalar tensors computed from others (those backward() can start from), named ``loss``
    first."""
    names = [n for n, info in workspace.tensors.items() if info.shape == () and info.grad_fn]
    return sorted(names, key=lambda n: (0 if "loss" in n.lower() else 1, -names.index(n)))


def _first_code_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            return line.strip()
    return text.strip()


def plan_text(plan) -> str:
    """Where the script's lines go, as the form lists them."""
    out = []
    for title, parts in (("Move into the loop", plan.body),
                         ("Replaced by the loop's own call", plan.absorbed),
                         ("Move after the loop", plan.after)):
        if not parts:
            continue
        out.append(f"{title}:")
        for part in parts:
            lines = f"{part.start}" if part.start == part.end else f"{part.start}–{part.end}"
            out.append(f"  line {lines:<7} {_first_code_line(part.text)}")
    return "\n".join(out)


class TrainingLoopDialog(FormDialog):
    """The "Training Loop…" form. ``form()`` -> LoopForm; ``code_edit()`` -> CodeEdit."""

    def __init__(self, workspace, source: str, parent: QWidget | None = None) -> None:
        super().__init__("Training Loop",
                         "Repeat the forward pass: zero the grads, recompute the loss, "
                         "backward(), step(). The lines the loss depends on move into the loop.",
                         workspace, source, parent)
        self.setObjectName("TrainingLoopDialog")
        f = self.fields
        self.optimizer_combo = QComboBox()
        self.optimizer_combo.addItems(list(workspace.optimizers))
        f.add_field("optimizer", "Optimizer", self.optimizer_combo)
        self.loss_combo = QComboBox()
        self.loss_combo.addItems(loss_candidates(workspace))
        f.add_field("loss", "Loss", self.loss_combo,
                    tooltip="A scalar tensor computed from the optimizer's parameters")
        self.iterations_spin = QSpinBox()
        self.iterations_spin.setRange(0, MAX_ITERATIONS)
        self.iterations_spin.setValue(100)
        f.add_field("iterations", "Iterations", self.iterations_spin)
        self.print_spin = QSpinBox()
        self.print_spin.setRange(0, MAX_ITERATIONS)
        self.print_spin.setValue(10)
        self.print_spin.setSpecialValueText("never")
        f.add_field("print_every", "Print loss every", self.print_spin)
        self.variable_edit = QLineEdit(suggest_name("iteration", workspace))
        f.add_field("variable", "Loop variable", self.variable_edit)

        self.moves = PreviewLabel(self)
        self.moves.setObjectName("loopMoves")
        self.moves_title = QLabel("What moves:")
        layout = self.layout()
        at = layout.indexOf(self.buttons)
        layout.insertWidget(at - 1, self.moves_title)
        layout.insertWidget(at, self.moves)

        for combo in (self.optimizer_combo, self.loss_combo):
            combo.currentTextChanged.connect(self.revalidate)
        for spin in (self.iterations_spin, self.print_spin):
            spin.valueChanged.connect(self.revalidate)
        self.variable_edit.textChanged.connect(self.revalidate)
        self.revalidate()

    def form(self):
        return sc.LoopForm(optimizer=self.optimizer_combo.currentText(),
                           loss=self.loss_combo.currentText(),
                           iterations=self.iterations_spin.value(),
                           print_every=self.print_spin.value(),
                           variable=self.variable_edit.text().strip())

    def errors(self) -> dict:
        return sc.loop_form_errors(self.form(), self.workspace, self.source)

    def plan(self):
        return sc.plan_training_loop(self.source, self.workspace, self.form())

    def preview_text(self) -> str:
        return self.plan().loop

    def revalidate(self, *_args) -> None:
        if not hasattr(self, "moves"):
            return  # still building the fields
        super().revalidate()
        try:
            text = plan_text(self.plan()) if self.ok_button.isEnabled() else ""
        except BuildError:
            text = ""
        self.moves.setText(text)
        self.moves.setVisible(bool(text))
        self.moves_title.setVisible(bool(text))

    def code_edit(self):
        return sc.wrap_in_training_loop(self.source, self.workspace, self.form())
