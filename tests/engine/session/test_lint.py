"""Lint warnings at runtime, each with its line."""

from engine.session import Session

from .scripts import DETACHED_LAYER, FORGOT_ZERO_GRAD, NONLEAF_GRAD, SGD_LOOP


def _warnings(source):
    s = Session(source)
    published = []
    s.subscribe(lambda e: published.append(e.warning) if e.kind == "warning" else None)
    s.continue_()
    assert s.status == "finished", s.error
    assert published == s.warnings
    return [(w.kind, w.line, w.subject) for w in s.warnings]


def test_forgotten_zero_grad_is_flagged_once_at_the_step_line():
    assert _warnings(FORGOT_ZERO_GRAD) == [("accumulated_grads", 7, "w")]


def test_training_loop_with_zero_grad_has_no_warning():
    assert _warnings(SGD_LOOP) == []


def test_reading_grad_of_a_non_leaf_gives_pytorchs_warning_at_its_line():
    assert _warnings(NONLEAF_GRAD) == [("nonleaf_grad", 5, "b")]


def test_detached_layer_is_disconnected_and_the_detach_line_is_named():
    found = _warnings(DETACHED_LAYER)
    assert ("disconnected_param", 13, "model.fc1.weight") in found
    assert ("disconnected_param", 13, "model.fc1.bias") in found
    assert ("detach_cuts_path", 9, None) in found
    assert not any(subject and subject.startswith("model.fc2") for _, _, subject in found)
