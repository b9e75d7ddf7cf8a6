"""PredictPanel on the real session: scenario 1's leaf questions and a backward() prediction."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from app.panels import PredictPanel
from engine.session import panels_model as pm

SHOTS = Path(__file__).resolve().parents[2] / "screenshots" / "panels"

SCRIPT = """\
import torch
t1 = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
t2 = t1 * t1 + 1
print(t1.is_leaf, t2.is_leaf)
z = t2.sum()
z.backward()
print(z.item())
"""


def to_line(controller, line):
    controller.run_to_line(line)
    assert controller.wait_idle(20_000)
    assert controller.snapshot.pause.position.line == line


def test_predictions_are_checked_with_their_explanation(qtbot, controller):
    assert controller.load_source(SCRIPT)
    assert controller.wait_idle(20_000)
    panel = PredictPanel(controller)
    qtbot.addWidget(panel, before_close_func=lambda w: w.shutdown())
    panel.show()

    to_line(controller, 4)
    questions = {q.prediction.expression: q for q in panel.questions}
    assert set(questions) == {"t1.is_leaf", "t2.is_leaf"}
    questions["t1.is_leaf"].guess.setText("True")
    questions["t1.is_leaf"].check.click()
    assert questions["t1.is_leaf"].verdict.text().startswith("✓ Right.")
    questions["t2.is_leaf"].guess.setText("True")  # the article's misconception
    questions["t2.is_leaf"].check.click()
    verdict = questions["t2.is_leaf"].verdict.text()
    assert verdict.startswith("✗ Not quite: it is False.") and "AddBackward0" in verdict
    assert "retain_grad()" in verdict
    SHOTS.mkdir(parents=True, exist_ok=True)
    panel.resize(640, 360)
    assert panel.grab().save(str(SHOTS / "predict_is_leaf.png"))

    to_line(controller, 6)  # before z.backward(): the answer exists only after it runs
    (question,) = panel.questions
    assert question.prediction.expression == "t1.grad" and not question.prediction.resolved
    question.guess.setText("[2, 4, 6]")
    question.check.click()
    assert question.verdict.text().startswith("Locked in")
    controller.step_over()
    assert controller.wait_idle(20_000)
    assert question.verdict.text().startswith("✓ Right.")
    assert "was None, so backward() stored the gradient itself" in question.verdict.text()
    panel.resize(640, 360)
    assert panel.grab().save(str(SHOTS / "predict_backward.png"))

    answered, question = panel.questions  # the answered one stays, then print(z.item())'s
    assert answered is panel.questions[0] and answered.prediction.expression == "t1.grad"
    assert question.prediction.answer == pytest.approx(17.0)
    question.guess.setText("17")
    question.check.click()
    assert question.verdict.text().startswith("✓ Right.")


def test_check_guess_reads_python_spelling():
    item = pm.Prediction("item", "z.item()", "?", 17.0)
    assert pm.check_guess(item, "17.0") and pm.check_guess(item, "tensor(17.)")
    assert not pm.check_guess(item, "18") and not pm.check_guess(item, "seventeen")
    listed = pm.Prediction("tolist", "x.tolist()", "?", [[1.0, 2.0]])
    assert pm.check_guess(listed, "[[1, 2]]") and not pm.check_guess(listed, "[1, 2]")
    leaf = pm.Prediction("is_leaf", "x.is_leaf", "?", False)
    assert pm.check_guess(leaf, "false") and not pm.check_guess(leaf, "True")
