"""Optimizers and training loops written by engine/builder/scaffolds.py, against real PyTorch.

Generated scripts run in torch and in the engine (engine.script.run) from explicit values (the
engine's random generator is not torch's) and must end with the same losses, parameters and
optimizer state; refusals must be torch's own messages where torch has one.
"""

from __future__ import annotations

import inspect
import textwrap

import numpy as np
import pytest

import engine
import engine.script
from engine.builder.edits import BuildError
from engine.builder.scaffolds import (
    OPTIMIZER_KINDS,
    LoopForm,
    OptimizerForm,
    add_optimizer,
    loop_form_errors,
    optimizer_form_errors,
    plan_training_loop,
    wrap_in_training_loop,
)
from engine.builder.workspace import describe
from tests.engine.builder.support import run_torch, torch_error

torch = pytest.importorskip("torch")


def workspace_of(source: str):
    return describe(engine.script.run(source), source)


def close(mine, theirs, rtol=1e-5, what=""):
    a = mine.detach().numpy() if hasattr(mine, "detach") else np.asarray(mine)
    b = theirs.detach().numpy() if hasattr(theirs, "detach") else np.asarray(theirs)
    assert a.shape == b.shape and a.dtype == b.dtype, what
    scale = max(1.0, float(np.abs(b).max(initial=0)))
    np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * scale, err_msg=what)


# -- optimizer kinds -------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", list(OPTIMIZER_KINDS))
def test_defaults_are_torchs_and_the_engines(kind):
    for lib in (torch.optim, engine.optim):
        signature = inspect.signature(getattr(lib, kind).__init__).parameters
        for param in OPTIMIZER_KINDS[kind]:
            assert signature[param.name].default == param.default, (lib, kind, param.name)
            assert type(signature[param.name].default) is type(param.default), (kind, param.name)


# -- adding an optimizer ---------------------------------------------------------------------------

PARAMS = textwrap.dedent("""\
    import torch
    w = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    b = torch.tensor([0.1, -0.2], requires_grad=True)
    x = torch.tensor([[1.0, 2.0], [-1.0, 0.5], [0.3, 0.3]])
    h = x @ w + b
""")

STEPS = textwrap.dedent("""\
    for i in range(5):
        optimizer.zero_grad()
        loss = ((x @ w + b) ** 2).mean()
        loss.backward()
        optimizer.step()
""")

OPTIMIZER_CASES = [
    ("SGD", {"lr": "0.1"}),
    ("SGD", {"lr": "0.05", "momentum": "0.9", "nesterov": "True", "weight_decay": "1e-2"}),
    ("SGD", {"lr": "0.05", "momentum": "0.5", "dampening": "0.3", "maximize": "true"}),
    ("Adam", {"lr": "1e-2", "betas": "0.8, 0.9", "amsgrad": "True"}),
    ("Adam", {}),
    ("AdamW", {"lr": "0.01", "weight_decay": "0.1", "eps": "1e-6"}),
    ("RMSprop", {"lr": "0.01", "alpha": "0.9", "momentum": "0.5", "centered": "True"}),
    ("Adagrad", {"lr": "0.1", "lr_decay": "0.01", "initial_accumulator_value": "0.1"}),
]


@pytest.mark.parametrize("kind, hyper", OPTIMIZER_CASES, ids=lambda v: str(v))
def test_added_optimizer_steps_the_same_in_torch_and_engine(kind, hyper):
    workspace = workspace_of(PARAMS)
    form = OptimizerForm("optimizer", kind, ("w", "b"), hyper)
    assert optimizer_form_errors(form, workspace) == {}
    edit = add_optimizer(PARAMS, workspace, form)
    written = edit.source.splitlines()[edit.line - 1]
    assert written.startswith(f"optimizer = torch.optim.{kind}([w, b]")
    source = edit.source + STEPS
    mine, theirs = engine.script.run(source), run_torch(source)
    for name in ("w", "b", "loss"):
        close(mine[name], theirs[name], what=name)
    for p_mine, p_theirs in zip((mine["w"], mine["b"]), (theirs["w"], theirs["b"])):
        state_mine = mine["optimizer"].state[p_mine]
        state_theirs = theirs["optimizer"].state[p_theirs]
        assert sorted(state_mine) == sorted(state_theirs)
        for key in state_theirs:
            close(state_mine[key], state_theirs[key], what=key)


def test_only_non_default_values_are_written():
    workspace = workspace_of(PARAMS)
    form = OptimizerForm("opt", "SGD", ("w",), {"lr": "0.1", "momentum": "0", "nesterov": "False",
                                                 "dampening": ""})
    edit = add_optimizer(PARAMS, workspace, form)
    assert edit.source.splitlines()[edit.line - 1] == "opt = torch.optim.SGD([w], lr=0.1)"


def test_a_module_means_its_parameters_and_the_alias_is_respected():
    source = textwrap.dedent("""\
        import torch as T
        model = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.Tanh(), T.nn.Linear(3, 1))
        with T.no_grad():
            model[0].weight.copy_(T.tensor([[0.1, 0.2], [-0.3, 0.4], [0.5, -0.6]]))
            model[0].bias.copy_(T.tensor([0.0, 0.1, -0.1]))
            model[2].weight.copy_(T.tensor([[0.3, -0.2, 0.1]]))
            model[2].bias.copy_(T.tensor([0.05]))
        s = T.tensor([1.5], requires_grad=True)
        X = T.tensor([[1.0, 2.0], [0.5, -1.0]])
    """)
    workspace = workspace_of(source)
    form = OptimizerForm("optimizer", "Adam", ("model",), {"lr": "0.01"})
    edit = add_optimizer(source, workspace, form)
    assert edit.source.splitlines()[edit.line - 1] == \
        "optimizer = T.optim.Adam(model.parameters(), lr=0.01)"
    assert "import torch\n" not in edit.source
    form = OptimizerForm("opt", "SGD", ("model", "s"), {"lr": "0.1"})
    both = add_optimizer(source, workspace, form)
    assert both.source.splitlines()[both.line - 1] == \
        "opt = T.optim.SGD([*model.parameters(), s], lr=0.1)"
    steps = "for i in range(3):\n    opt.zero_grad()\n    loss = (model(X) * s).sum()\n" \
            "    loss.backward()\n    opt.step()\n"
    mine, theirs = engine.script.run(both.source + steps), run_torch(both.source + steps)
    close(mine["s"], theirs["s"])
    for p_mine, p_theirs in zip(mine["model"].parameters(), theirs["model"].parameters()):
        close(p_mine, p_theirs)


def test_a_module_parameter_is_written_as_python():
    source = "import torch\nmodel = torch.nn.Sequential(torch.nn.Linear(2, 1))\n"
    edit = add_optimizer(source, workspace_of(source),
                         OptimizerForm("opt", "SGD", ("model[0].weight",), {}))
    assert edit.source.splitlines()[-1] == "opt = torch.optim.SGD([model[0].weight])"
    engine.script.run(edit.source)
    run_torch(edit.source)


BAD_VALUES = [
    ("SGD", "lr", "-1.0"), ("SGD", "lr", "-1"), ("SGD", "momentum", "-0.5"),
    ("SGD", "weight_decay", "-1e-3"), ("SGD", "nesterov", "True"),
    ("Adam", "lr", "-0.1"), ("Adam", "eps", "-1e-8"), ("Adam", "betas", "1.0, 0.999"),
    ("Adam", "betas", "(0.9, -0.1)"), ("Adam", "weight_decay", "-1"),
    ("AdamW", "betas", "[0.5, 1.5]"), ("RMSprop", "alpha", "-0.9"), ("RMSprop", "momentum", "-1"),
    ("RMSprop", "eps", "-1.0"), ("Adagrad", "lr_decay", "-0.1"),
    ("Adagrad", "initial_accumulator_value", "-1.0"), ("Adagrad", "eps", "-1e-10"),
]


@pytest.mark.parametrize("kind, name, text", BAD_VALUES)
def test_bad_values_are_refused_with_torchs_message(kind, name, text):
    import ast

    workspace = workspace_of(PARAMS)
    form = OptimizerForm("optimizer", kind, ("w",), {name: text})
    errors = optimizer_form_errors(form, workspace)
    value = ast.literal_eval(text)
    value = tuple(value) if isinstance(value, list) else value
    leaf = torch.zeros(1, requires_grad=True)
    message = torch_error(lambda: getattr(torch.optim, kind)([leaf], **{name: value}))
    assert errors == {name: message}


def test_the_later_of_two_conflicting_values_is_blamed():
    workspace = workspace_of(PARAMS)
    errors = optimizer_form_errors(OptimizerForm("o", "SGD", ("w",), {
        "momentum": "0.9", "dampening": "0.1", "nesterov": "True"}), workspace)
    leaf = torch.zeros(1, requires_grad=True)
    message = torch_error(
        lambda: torch.optim.SGD([leaf], momentum=0.9, dampening=0.1, nesterov=True))
    assert errors == {"nesterov": message}


@pytest.mark.parametrize("text", ["abc", "__import__('os')", "0.1 # x", "[0.1]", "True", "1 + 1"])
def test_hyper_values_are_literals_only(text):
    form = OptimizerForm("o", "SGD", ("w",), {"lr": text})
    errors = optimizer_form_errors(form, workspace_of(PARAMS))
    assert "lr" in errors


def test_parameter_problems():
    workspace = workspace_of(PARAMS + "k = torch.tensor([1.0])\n")
    leaf = torch.zeros(1, requires_grad=True)

    def params_error(params):
        return optimizer_form_errors(OptimizerForm("o", "SGD", params), workspace).get("params")

    assert params_error(("h",)).startswith(torch_error(lambda: torch.optim.SGD([leaf * 2])))
    assert params_error(()).startswith(torch_error(lambda: torch.optim.SGD([])))
    assert "requires_grad=True" in params_error(("k",))
    assert "nowhere" in params_error(("nowhere",))
    assert "twice" in params_error(("w", "w"))
    assert params_error(("w", "b")) is None


def test_names_and_kinds():
    workspace = workspace_of(PARAMS)
    assert "name" in optimizer_form_errors(OptimizerForm("w", "SGD", ("b",)), workspace)
    assert "name" in optimizer_form_errors(OptimizerForm("class", "SGD", ("b",)), workspace)
    assert "kind" in optimizer_form_errors(OptimizerForm("o", "LBFGS", ("b",)), workspace)
    with pytest.raises(BuildError) as info:
        add_optimizer(PARAMS, workspace, OptimizerForm("o", "SGD", ("b",), {"lr": "-2"}))
    assert (info.value.field, info.value.message) == ("lr", "Invalid learning rate: -2")


# -- training loops --------------------------------------------------------------------------------

MLP = textwrap.dedent("""\
    import torch
    import torch.nn.functional as F

    # data: XOR
    X = torch.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    Y = torch.tensor([[0.0], [1.0], [1.0], [0.0]])

    # parameters
    W1 = torch.tensor([[0.5, -0.3, 0.8], [0.2, 0.7, -0.6]], requires_grad=True)
    b1 = torch.tensor([0.0, 0.1, -0.1], requires_grad=True)
    W2 = torch.tensor([[0.3], [-0.2], [0.5]], requires_grad=True)
    b2 = torch.tensor([0.05], requires_grad=True)
    optimizer = torch.optim.SGD([W1, b1, W2, b2], lr=0.5)

    # forward pass
    h = torch.tanh(X @ W1 + b1)
    h.retain_grad()
    out = h @ W2 + b2  # prediction
    loss = F.mse_loss(out, Y)
    print("loss", loss)

    loss.backward()
    optimizer.step()
    print(W1.grad)
""")


def test_raw_tensor_mlp_trains_the_same_in_torch_and_engine():
    workspace = workspace_of(MLP)
    form = LoopForm("optimizer", "loss", iterations=10)
    assert loop_form_errors(form, workspace, MLP) == {}
    edit = wrap_in_training_loop(MLP, workspace, form)
    mine, theirs = engine.script.run(edit.source), run_torch(edit.source)
    for name in ("loss", "W1", "b1", "W2", "b2", "out"):
        close(mine[name], theirs[name], what=name)
    for name in ("W1", "b1", "W2", "b2", "h"):
        close(mine[name].grad, theirs[name].grad, what=f"{name}.grad")
    # it really trained: ten steps from the script's start, not one
    once = run_torch(MLP)
    assert theirs["loss"].item() < once["loss"].item()
    # and the loop ran exactly 10 times: replaying 10 manual steps in torch gives the same
    manual = MLP.replace("loss.backward()\noptimizer.step()\n", "")
    replay = run_torch(manual + "for _ in range(9):\n    loss.backward()\n    optimizer.step()\n"
                       "    optimizer.zero_grad()\n    h = torch.tanh(X @ W1 + b1)\n"
                       "    out = h @ W2 + b2\n    loss = F.mse_loss(out, Y)\n"
                       "loss.backward()\noptimizer.step()\n")
    close(theirs["W1"], replay["W1"])


def test_plan_keeps_text_comments_and_order():
    workspace = workspace_of(MLP)
    plan = plan_training_loop(MLP, workspace, LoopForm("optimizer", "loss", 10))
    lines = MLP.splitlines()
    for part in plan.before + plan.body + plan.after + plan.absorbed:
        assert part.text == "\n".join(lines[part.start - 1:part.end])
    assert [p.text for p in plan.body] == [
        "# forward pass\nh = torch.tanh(X @ W1 + b1)", "h.retain_grad()",
        "out = h @ W2 + b2  # prediction", "loss = F.mse_loss(out, Y)"]
    assert [p.text for p in plan.after] == ['print("loss", loss)', "print(W1.grad)"]
    assert [p.text for p in plan.absorbed] == ["loss.backward()", "optimizer.step()"]
    starts = [p.start for p in plan.before]
    assert starts == sorted(starts)
    assert any(p.text.startswith("# parameters\nW1 = ") for p in plan.before)
    assert any(p.text.startswith("optimizer = torch.optim.SGD") for p in plan.before)
    assert plan.loop == textwrap.dedent("""\
        for iteration in range(10):
            optimizer.zero_grad()
            # forward pass
            h = torch.tanh(X @ W1 + b1)
            h.retain_grad()
            out = h @ W2 + b2  # prediction
            loss = F.mse_loss(out, Y)
            loss.backward()
            optimizer.step()""")


def test_wrapped_text():
    form = LoopForm("optimizer", "loss", 3, 2, "epoch")
    edit = wrap_in_training_loop(MLP, workspace_of(MLP), form)
    assert edit.source == textwrap.dedent("""\
        import torch
        import torch.nn.functional as F

        # data: XOR
        X = torch.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
        Y = torch.tensor([[0.0], [1.0], [1.0], [0.0]])

        # parameters
        W1 = torch.tensor([[0.5, -0.3, 0.8], [0.2, 0.7, -0.6]], requires_grad=True)
        b1 = torch.tensor([0.0, 0.1, -0.1], requires_grad=True)
        W2 = torch.tensor([[0.3], [-0.2], [0.5]], requires_grad=True)
        b2 = torch.tensor([0.05], requires_grad=True)
        optimizer = torch.optim.SGD([W1, b1, W2, b2], lr=0.5)

        for epoch in range(3):
            optimizer.zero_grad()
            # forward pass
            h = torch.tanh(X @ W1 + b1)
            h.retain_grad()
            out = h @ W2 + b2  # prediction
            loss = F.mse_loss(out, Y)
            loss.backward()
            optimizer.step()
            if epoch % 2 == 0:
                print(epoch, loss.item())

        print("loss", loss)
        print(W1.grad)
    """)
    assert edit.source.splitlines()[edit.line - 1] == "for epoch in range(3):"


def test_printing_every_k_iterations():
    edit = wrap_in_training_loop(MLP, workspace_of(MLP), LoopForm("optimizer", "loss", 7, 3))
    printed: list = []
    interp = engine.script.Interpreter(edit.source, on_print=printed.append)
    for _ in interp.steps():
        pass
    iterations = [line.split()[0] for line in "".join(map(str, printed)).splitlines()
                  if line.split() and line.split()[0].isdigit()]
    assert iterations == ["0", "3", "6"]


MODULE_MLP = textwrap.dedent("""\
    import torch as T
    import torch.nn.functional as F

    X = T.tensor([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    Y = T.tensor([[1.0], [1.0], [0.0]])
    model = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.ReLU(), T.nn.Linear(3, 1))
    with T.no_grad():
        model[0].weight.copy_(T.tensor([[0.1, 0.2], [-0.3, 0.4], [0.5, -0.6]]))
        model[0].bias.copy_(T.tensor([0.0, 0.1, 0.2]))
        model[2].weight.copy_(T.tensor([[0.3, -0.2, 0.1]]))
        model[2].bias.copy_(T.tensor([0.05]))
    optimizer = T.optim.Adam(model.parameters(), lr=0.05)
    optimizer.zero_grad()
    out = model(X)
    loss = F.mse_loss(out, Y)
    loss.backward()
    optimizer.step()
""")


def test_module_mlp_with_alias_trains_the_same_in_torch_and_engine():
    workspace = workspace_of(MODULE_MLP)
    form = LoopForm("optimizer", "loss", iterations=10, print_every=5)
    assert loop_form_errors(form, workspace, MODULE_MLP) == {}
    plan = plan_training_loop(MODULE_MLP, workspace, form)
    assert [p.text for p in plan.body] == ["out = model(X)", "loss = F.mse_loss(out, Y)"]
    assert any(p.text.startswith("with T.no_grad():") for p in plan.before)
    edit = wrap_in_training_loop(MODULE_MLP, workspace, form)
    mine, theirs = engine.script.run(edit.source), run_torch(edit.source)
    close(mine["loss"], theirs["loss"], rtol=1e-4)
    for p_mine, p_theirs in zip(mine["model"].parameters(), theirs["model"].parameters()):
        close(p_mine, p_theirs, rtol=1e-4)
    state_mine = mine["optimizer"].state_dict()["state"]
    state_theirs = theirs["optimizer"].state_dict()["state"]
    for index in state_theirs:
        for key in state_theirs[index]:
            close(state_mine[index][key], state_theirs[index][key], rtol=1e-4, what=key)


def test_a_loop_for_a_freshly_built_script_without_backward():
    source = textwrap.dedent("""\
        import torch
        w = torch.tensor([1.0, -2.0], requires_grad=True)
        x = torch.tensor([0.5, 3.0])
        y = (w * x).sum()
        loss = (y - 1.0) ** 2
        optimizer = torch.optim.SGD([w], lr=0.01)
    """)
    edit = wrap_in_training_loop(source, workspace_of(source), LoopForm("optimizer", "loss", 5))
    assert edit.source.endswith(textwrap.dedent("""\
        for iteration in range(5):
            optimizer.zero_grad()
            y = (w * x).sum()
            loss = (y - 1.0) ** 2
            loss.backward()
            optimizer.step()
    """))
    mine, theirs = engine.script.run(edit.source), run_torch(edit.source)
    close(mine["w"], theirs["w"])
    close(mine["loss"], theirs["loss"])


# -- loop refusals ---------------------------------------------------------------------------------

REFUSALS = textwrap.dedent("""\
    import torch
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    v = torch.tensor([3.0], requires_grad=True)
    x = torch.tensor([0.5, -1.0])
    per_item = w * x
    loss = per_item.sum()
    other = (v * 2).sum()
    const = x.sum()
    optimizer = torch.optim.SGD([w], lr=0.1)
    opt_v = torch.optim.SGD([v], lr=0.1)
""")


def test_non_scalar_loss_refused_with_torchs_message():
    errors = loop_form_errors(LoopForm("optimizer", "per_item"), workspace_of(REFUSALS), REFUSALS)
    t = torch.ones(2, requires_grad=True) * 2
    assert errors["loss"].startswith(torch_error(lambda: t.backward()))


def test_loss_without_grad_fn_refused_with_torchs_message():
    errors = loop_form_errors(LoopForm("optimizer", "const"), workspace_of(REFUSALS), REFUSALS)
    assert errors["loss"].startswith(torch_error(lambda: torch.ones(()).backward()))


def test_loss_independent_of_the_parameters_says_which():
    errors = loop_form_errors(LoopForm("opt_v", "loss"), workspace_of(REFUSALS), REFUSALS)
    assert "does not depend on v" in errors["loss"]
    errors = loop_form_errors(LoopForm("opt_v", "other"), workspace_of(REFUSALS), REFUSALS)
    assert "loss" not in errors


def test_other_refusals():
    workspace = workspace_of(REFUSALS)
    assert "optimizer" in loop_form_errors(LoopForm("nope", "loss"), workspace, REFUSALS)
    assert "loss" in loop_form_errors(LoopForm("optimizer", "nope"), workspace, REFUSALS)
    assert "iterations" in loop_form_errors(LoopForm("optimizer", "loss", 0), workspace, REFUSALS)
    assert "print_every" in loop_form_errors(LoopForm("optimizer", "loss", 3, -1), workspace,
                                             REFUSALS)
    assert "variable" in loop_form_errors(LoopForm("optimizer", "loss", variable="w"), workspace,
                                          REFUSALS)
    with pytest.raises(BuildError) as info:
        wrap_in_training_loop(REFUSALS, workspace, LoopForm("optimizer", "loss", 0))
    assert info.value.field == "iterations"


def test_a_script_that_already_loops_is_refused():
    source = REFUSALS + textwrap.dedent("""\
        for i in range(3):
            optimizer.zero_grad()
            loss = (w * x).sum()
            loss.backward()
            optimizer.step()
    """)
    errors = loop_form_errors(LoopForm("optimizer", "loss"), workspace_of(source), source)
    assert errors == {"optimizer": "optimizer.step() already runs in the loop at line 11"}


def test_rebinding_an_input_between_moved_statements_is_refused():
    source = textwrap.dedent("""\
        import torch
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        x = torch.tensor([0.5, -1.0])
        y = w * x
        x = x * 3
        loss = (y * x).sum()
        optimizer = torch.optim.SGD([w], lr=0.1)
    """)
    errors = loop_form_errors(LoopForm("optimizer", "loss"), workspace_of(source), source)
    assert "line 5" in errors["loss"]


def test_odd_layouts_move_verbatim():
    source = textwrap.dedent('''\
        import torch as T
        w = T.tensor([1.0, -1.0], requires_grad=True)
        params = [w]
        x = T.tensor([2.0, 0.5])
        optimizer = T.optim.SGD(params, lr=0.05)
        # two statements on one line, and a string over two lines
        y = (w * x).sum() + len("""ab
        cd"""); z = y * 2
        loss = (z - 1.0) ** 2
        # compute the gradients and step, as one line
        loss.backward(); optimizer.step()
        print(z)
    ''')
    workspace = workspace_of(source)
    form = LoopForm("optimizer", "loss", 4)
    plan = plan_training_loop(source, workspace, form)
    assert [p.start for p in plan.body] == [6, 9]
    assert [p.text for p in plan.after] == ["print(z)"]
    assert [p.start for p in plan.absorbed] == [10]
    edit = wrap_in_training_loop(source, workspace, form)
    assert '    y = (w * x).sum() + len("""ab\ncd"""); z = y * 2\n' in edit.source
    mine, theirs = engine.script.run(edit.source), run_torch(edit.source)
    close(mine["w"], theirs["w"])
    close(mine["z"], theirs["z"])
    # four steps, not five: the script's own backward/step line was absorbed
    w = torch.tensor([1.0, -1.0])
    for _ in range(4):
        z = ((w * torch.tensor([2.0, 0.5])).sum() + len("ab\ncd")) * 2
        grad = 2 * (z - 1.0) * 2 * torch.tensor([2.0, 0.5])
        w = w - 0.05 * grad
    close(theirs["w"], w)
