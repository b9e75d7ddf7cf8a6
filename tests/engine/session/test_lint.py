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


DEMO_THEN_TRAIN = """\
import torch
import torch.nn as nn
torch.manual_seed(0)
demo = nn.Linear(2, 2)
print(demo(torch.ones(1, 2)))
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(2):
    opt.zero_grad()
    loss = model(torch.ones(4, 2)).pow(2).mean()
    loss.backward()
    opt.step()
"""


def test_a_module_only_shown_is_not_disconnected():
    # demo is in no optimizer and took no part in the loss: nobody trains it
    assert _warnings(DEMO_THEN_TRAIN) == []


def test_a_parameter_an_optimizer_holds_is_disconnected_even_without_gradients_elsewhere():
    source = DEMO_THEN_TRAIN.replace("model.parameters()", "[*model.parameters(), demo.weight]")
    assert _warnings(source) == [("disconnected_param", 11, "demo.weight")]


def test_a_module_in_play_in_no_optimizer_still_warns_of_its_cut_part():
    found = _warnings(DETACHED_LAYER + "demo = nn.Linear(1, 1)\nloss = model(torch.ones(1, 2))"
                      ".sum()\nloss.backward()\n")
    assert ("disconnected_param", 13, "model.fc1.weight") in found
    assert not any(subject and subject.startswith("demo") for _, _, subject in found)


def test_a_script_s_own_warning_is_listed_at_its_line_whatever_its_filters():
    # the filter calls notebooks open with change nothing: the debugger lists every warning
    source = ("import warnings\nwarnings.filterwarnings('ignore')\nx = 1\n"
              "warnings.warn('the learning rate is high', UserWarning)\n")
    assert _warnings(source) == [("python_warning", 4, None)]


def test_a_warning_raised_after_a_call_into_the_script_returns_is_at_the_callers_line():
    # the last pause was inside the function (its return line); the warning is the caller's
    source = ("import torch\nw = torch.ones(2, requires_grad=True)\n"
              "def loss_of(t):\n    y = (t * t).sum()\n    return y\n"
              "value = float(loss_of(w))\n"
              "def shout():\n    x = 1\n    import warnings\n"
              "    warnings.warn('inside', UserWarning)\n    return x\n"
              "shout()\n")
    assert _warnings(source) == [("python_warning", 6, None), ("python_warning", 10, None)]
