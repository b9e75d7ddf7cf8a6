"""``PredictPanel``: predict mode. Before a statement that calls ``.item()``, ``.tolist()`` or
``backward()``, or reads ``is_leaf``, the user types what they expect; the panel then says whether
they were right, with the explanation (``panels_model.predictions`` / ``check_guess``).

A ``backward()`` question is answered at the next pause: only running it computes the gradient.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from engine.session import events as ev
from engine.session import panels_model as pm

from .base import Panel
from .hub import panels_hub
from .point import point_view
from .tones import tone
from .widgets import header, note_label, vbox


class _Question:
    """One question's widgets: the question, the guess, Check, and the verdict."""

    def __init__(self, prediction: pm.Prediction) -> None:
        self.prediction = prediction
        self.guess_text: str | None = None  # what the user locked in
        self.label = QLabel(prediction.question)
        self.label.setWordWrap(True)
        self.guess = QLineEdit()
        self.guess.setPlaceholderText("your prediction, e.g. 2.0, [1, 2], True")
        self.check = QPushButton("Check")
        self.verdict = QLabel("")
        self.verdict.setWordWrap(True)
        self.check.clicked.connect(self.submit)
        self.guess.returnPressed.connect(self.submit)

    def place(self, grid: QGridLayout, row: int) -> None:
        grid.addWidget(self.label, 2 * row, 0)
        grid.addWidget(self.guess, 2 * row, 1)
        grid.addWidget(self.check, 2 * row, 2)
        grid.addWidget(self.verdict, 2 * row + 1, 0, 1, 3)

    def submit(self) -> None:
        self.guess_text = self.guess.text()
        self.guess.setReadOnly(True)
        self.check.setEnabled(False)
        if self.prediction.resolved:
            self.reveal()
        else:
            self.verdict.setText("Locked in: step over the statement to see the answer.")

    def reveal(self) -> None:
        p = self.prediction
        if self.guess_text is None:
            return
        right = pm.check_guess(p, self.guess_text)
        colour = tone(self.verdict, "fresh" if right else "changed")
        self.verdict.setStyleSheet(f"background: {colour.name()}; padding: 3px;")
        answer = p.answer if not isinstance(p.answer, float) else f"{p.answer:.6g}"
        self.verdict.setText(("✓ Right. " if right else f"✗ Not quite: it is {answer}. ")
                             + p.explanation)

    def remove(self) -> None:
        for widget in (self.label, self.guess, self.check, self.verdict):
            widget.setParent(None)
            widget.deleteLater()


class PredictPanel(Panel):
    """Questions about the statement the session is paused before, answered by the user first."""

    def __init__(self, controller, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("PredictPanel")
        self.controller = controller
        self.hub = panels_hub(controller)
        self.hub.acquire()
        self.questions: list[_Question] = []
        self._waiting: list[_Question] = []  # backward() questions answered at the next pause
        self._shown_event = None  # the pause the questions are about

        layout = vbox(self)
        top, self.status = header("Predict")
        layout.addLayout(top)
        self.enabled = QCheckBox("Predict mode: ask me before .item(), .tolist(), is_leaf and "
                                 "backward()")
        self.enabled.setChecked(True)
        self.enabled.toggled.connect(lambda _on: self.refresh(force=True))
        layout.addWidget(self.enabled)
        layout.addWidget(note_label("Type what you expect, then Check. Answers use Python "
                                    "spelling: 17.0, [2.0, 4.0], True, None."))
        self.area = QScrollArea()
        self.area.setWidgetResizable(True)
        body = QWidget()
        column = QVBoxLayout(body)
        self.grid = QGridLayout()
        self.grid.setColumnStretch(0, 2)
        self.grid.setColumnStretch(1, 1)
        column.addLayout(self.grid)
        column.addStretch(1)  # questions stay at the top, each as tall as its text
        self.area.setWidget(body)
        layout.addWidget(self.area, 1)
        self.connect_signals()
        self.refresh()

    def refresh(self, *_args, force: bool = False) -> None:
        view = point_view(self.controller, self.hub)
        event = self.hub.rest_event if self.hub is not None else None
        if view is None or (event is self._shown_event and not force):
            return  # the same pause again (a redraw): the questions stand
        self._shown_event = event
        # backward() has run since these were asked: reveal them, and keep them on screen for
        # this pause; everything older goes
        just_answered = self._waiting
        for q in just_answered:
            q.prediction = pm.resolve(q.prediction, view.snapshot)
            q.reveal()
        for q in self.questions:
            if q not in just_answered:
                q.remove()
        pause = event.pause if isinstance(event, ev.Paused) else None
        stmt = getattr(pause, "stmt", None) if getattr(pause, "kind", "") == "statement" else None
        found = []
        if self.enabled.isChecked() and not view.travelled:
            found = [_Question(p) for p in self.hub.predictions(stmt, view.live)]
        self.questions = just_answered + found
        for row, q in enumerate(self.questions):
            q.place(self.grid, row)
        self._waiting = [q for q in found if not q.prediction.resolved]
        self.status.setText(f"line {pause.line}: {len(found)} question(s)" if found else
                            "nothing to predict before this statement")

