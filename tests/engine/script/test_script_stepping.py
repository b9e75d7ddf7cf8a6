"""The stepping API: pauses before every statement at every depth, inside backward() node by
node, stop() from another thread, and the engine left usable after a stop or a limit."""

from __future__ import annotations

import threading

import pytest

import engine
from engine.autograd.grad_mode import state as grad_state
from engine.script import Interpreter, Limits, Pause, ScriptError


def pauses(source, **kwargs):
    return list(Interpreter(source, **kwargs).steps())


FUNCTION_AND_LOOP = """\
def double(v):
    w = v * 2
    return w

total = 0
for i in range(2):
    total = total + double(i)
done = True
"""


def test_pause_lines_follow_calls_and_loops():
    seen = [(p.kind, p.line, p.depth, tuple(f.name for f in p.stack), p.loop_iterations)
            for p in pauses(FUNCTION_AND_LOOP)]
    outer = ("<module>",)
    inner = ("<module>", "double")
    assert seen == [
        ("statement", 1, 0, outer, ()),
        ("statement", 5, 0, outer, ()),
        ("statement", 6, 0, outer, ()),
        ("statement", 7, 0, outer, ((6, 0),)),
        ("statement", 2, 1, inner, ((6, 0),)),
        ("statement", 3, 1, inner, ((6, 0),)),
        ("statement", 7, 0, outer, ((6, 1),)),
        ("statement", 2, 1, inner, ((6, 1),)),
        ("statement", 3, 1, inner, ((6, 1),)),
        ("statement", 8, 0, outer, ()),
    ]


def test_pause_fields():
    gen = Interpreter(FUNCTION_AND_LOOP).steps()
    for p in gen:
        if p.depth == 1:
            break
    assert isinstance(p, Pause)
    assert p.stack[0].line == 7  # the caller's line: the call site
    assert p.stack[-1].line == p.line == 2
    assert p.locals == {"v": 0}
    assert p.globals["total"] == 0 and "double" in p.globals
    assert (p.col, p.end_line, p.end_col) == (4, 2, 13)
    assert type(p.stmt).__name__ == "Assign"
    assert p.step is None
    gen.close()


def test_steps_returns_the_namespace():
    gen = Interpreter("a = 1\nb = a + 1\n").steps()
    with pytest.raises(StopIteration) as done:
        while True:
            next(gen)
    assert done.value.value["b"] == 2


SEED_DEMO = """\
import numpy as np
import torch as T

x = np.array([1, 2, 3], dtype=np.float32)
t1 = T.tensor(x, dtype=T.float32, requires_grad=True)
t2 = t1 * t1 + 1
t2.retain_grad()
z = t2.sum()
z.backward()
after = 1
"""


def test_backward_steps_of_the_seed_demo():
    steps = [p for p in pauses(SEED_DEMO) if p.kind == "backward_step"]
    assert [p.step.node.name() for p in steps] == [
        "SumBackward0", "AddBackward0", "MulBackward0", "torch::autograd::AccumulateGrad"]
    assert all(p.line == 9 and p.stmt.lineno == 9 for p in steps)
    assert [p.step.index for p in steps] == [0, 1, 2, 3]


def test_grads_are_written_step_by_step():
    gen = Interpreter(SEED_DEMO).steps()
    grads_seen = []
    for p in gen:
        if p.kind == "backward_step":
            t1, t2 = p.globals["t1"], p.globals["t2"]
            grads_seen.append((t1.grad is None, t2.grad is not None))
    # t2's retained grad is written when its node (AddBackward0) runs, t1's at AccumulateGrad
    assert grads_seen == [(True, False), (True, True), (True, True), (False, True)]


def test_module_forward_pauses_inside_the_class():
    source = """\
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 1)

    def forward(self, x):
        h = self.fc(x)
        return h.relu()

net = Net()
y = net(torch.ones(1, 2))
"""
    names = {(p.line, tuple(f.name for f in p.stack)) for p in pauses(source)}
    assert (10, ("<module>", "forward")) in names
    assert (6, ("<module>", "__init__")) in names


def test_stop_from_another_thread_ends_an_endless_loop():
    started = threading.Event()
    interp = Interpreter("print('go')\ni = 0\nwhile True:\n    i = i + 1\n",
                         on_print=lambda text: started.set())
    stopper = threading.Thread(target=lambda: (started.wait(), interp.stop()))
    stopper.start()
    with pytest.raises(ScriptError) as err:
        interp.run()
    stopper.join()
    assert err.value.kind == "stopped"
    assert err.value.line in (3, 4)


def test_stop_while_stepping_raises_at_the_next_statement():
    interp = Interpreter("i = 0\nwhile True:\n    i = i + 1\n")
    gen = interp.steps()
    for p in gen:
        if p.loop_iterations and p.loop_iterations[0][1] == 5:
            break
    stopper = threading.Thread(target=interp.stop)
    stopper.start()
    stopper.join()
    with pytest.raises(ScriptError) as err:
        next(gen)
    assert err.value.kind == "stopped"


def test_grad_mode_restored_after_stop_inside_no_grad():
    source = "import torch\nwith torch.no_grad():\n    a = 1\n    b = 2\nc = 3\n"
    interp = Interpreter(source)
    gen = interp.steps()
    for p in gen:
        if p.line == 4:
            break
    assert not torch_grad_enabled()
    interp.stop()
    with pytest.raises(ScriptError) as err:
        next(gen)
    assert err.value.kind == "stopped"
    assert torch_grad_enabled()


def test_grad_mode_restored_when_the_generator_is_closed_inside_backward():
    source = SEED_DEMO.replace("z.backward()", "with T.no_grad():\n    z.backward()")
    gen = Interpreter(source).steps()
    for p in gen:
        if p.kind == "backward_step":
            break
    assert not torch_grad_enabled()
    gen.close()
    assert torch_grad_enabled()


def test_stop_between_backward_steps():
    interp = Interpreter(SEED_DEMO)
    gen = interp.steps()
    for p in gen:
        if p.kind == "backward_step" and p.step.index == 1:
            break
    interp.stop()
    with pytest.raises(ScriptError) as err:
        next(gen)
    assert err.value.kind == "stopped" and err.value.line == 9
    assert torch_grad_enabled()


def test_interpreter_and_engine_usable_after_a_limit():
    interp = Interpreter("import torch\nwith torch.no_grad():\n    while True:\n        pass\n",
                         limits=Limits(max_statements=1000))
    for _ in range(2):
        with pytest.raises(ScriptError) as err:
            interp.run()
        assert err.value.kind == "limit"
        assert torch_grad_enabled()
    ns = Interpreter("import torch\nx = torch.ones(2, requires_grad=True)\ny = (x * 3).sum()\n"
                     "y.backward()\n").run()
    assert ns["x"].grad.tolist() == [3.0, 3.0]


def test_stepping_and_running_give_the_same_namespace():
    source = FUNCTION_AND_LOOP + "import torch\n" \
        "w = torch.tensor([1.0, 2.0], requires_grad=True)\n" \
        "(w * w).sum().backward()\n"
    ran = Interpreter(source).run()
    gen = Interpreter(source).steps()
    with pytest.raises(StopIteration) as done:
        while True:
            next(gen)
    stepped = done.value.value
    assert stepped["total"] == ran["total"]
    assert stepped["w"].grad.tolist() == ran["w"].grad.tolist()


def test_print_goes_to_on_print_and_output():
    got = []
    interp = Interpreter("import torch\nprint('a', 1, sep='-', end='!')\nprint(torch.ones(2))\n",
                         on_print=got.append)
    interp.run()
    assert got == interp.output == ["a-1!", f"{engine.ones(2)!r}\n"]


def test_script_function_called_after_the_run_still_works():
    ns = Interpreter("def f(x):\n    y = x + 1\n    return y * 2\n").run()
    assert ns["f"](3) == 8


def torch_grad_enabled() -> bool:
    return grad_state.enabled


def test_pauses_inside_a_function_called_from_a_lambda():
    source = "def g(v):\n    w = v + 1\n    return w\nf = lambda v: g(v)\nr = f(1)\n"
    inner = [p for p in pauses(source) if p.depth == 2]
    assert [p.line for p in inner] == [2, 3]
    assert [tuple(f) for f in inner[0].stack] == [("<module>", 5), ("<lambda>", 4), ("g", 2)]


def test_stop_before_the_first_statement_stops_that_run_only():
    interp = Interpreter("a = 1\n")
    interp.stop()
    with pytest.raises(ScriptError) as err:
        interp.run()
    assert err.value.kind == "stopped" and err.value.line == 1
    assert interp.run()["a"] == 1
