"""The builder's core: the workspace (checked against the same script run in real torch), text
edits (imports once, the script's torch alias, line numbers), and result names."""

from __future__ import annotations

import ast
import time
import warnings

import pytest

import engine.script
from engine.builder.edits import (
    BuildError,
    CodeEdit,
    append_statement,
    functional_alias,
    functional_import,
    import_line_for,
    torch_alias,
    torch_import,
)
from engine.builder.names import name_problem, suggest_name
from engine.builder.workspace import Workspace, describe, names_bound_in, script_expression

WORKSPACE_SCRIPT = """import torch
import torch.nn as nn
import numpy as np
from torch import optim as O

model = nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 1))
xs = [torch.tensor([1.0, 2.0, 3.0]), torch.tensor([[1.0, 0.0, 2.0]], requires_grad=True)]
data = {"a": torch.arange(4), "b": torch.zeros(2, dtype=torch.float64)}
opt = O.SGD(model.parameters(), lr=0.1)
y = model(xs[1])
loss = (y * y).sum()
h = xs[1] * 2
h.retain_grad()
loss.backward()
for step in range(2):
    tmp = step
def helper(arg):
    inner = arg
    return inner
class Thing:
    pass
with open_like() if False else None as managed:
    pass
count = 0
count += 1
a, (b, c) = 1, (2, 3)
"""


def _without_unsupported(src):
    # the with statement is only there for names_bound_in; neither interpreter needs to run it
    return src.replace("with open_like() if False else None as managed:\n    pass\n", "")


@pytest.fixture(scope="module")
def workspace():
    src = _without_unsupported(WORKSPACE_SCRIPT)
    return describe(engine.script.run(src), WORKSPACE_SCRIPT)


def test_workspace_matches_torch(workspace):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    ns = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(_without_unsupported(WORKSPACE_SCRIPT), ns)
    assert workspace.tensors, "no tensors found"
    for name, info in workspace.tensors.items():
        t = eval(name, ns)
        assert isinstance(t, torch.Tensor), name
        assert info.shape == tuple(t.shape), name
        assert info.dtype == str(t.dtype).removeprefix("torch."), name
        assert info.requires_grad == t.requires_grad, name
        assert info.is_leaf == t.is_leaf, name
        assert info.grad_fn == (t.grad_fn.name() if t.grad_fn is not None else None), name
        assert info.retains_grad == t.retains_grad, name
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert info.has_grad == (t.grad is not None), name
    # every tensor torch can reach by those routes is listed
    expected = {f"model[{i}].{p}" for i in (0, 2) for p in ("weight", "bias")}
    expected |= {"xs[0]", "xs[1]", "data['a']", "data['b']", "y", "loss", "h"}
    assert set(workspace.tensors) == expected
    opt = workspace.optimizers["opt"]
    assert opt.kind == type(ns["opt"]).__name__
    assert len(opt.params) == sum(len(g["params"]) for g in ns["opt"].param_groups)
    assert workspace.modules == {"model": type(ns["model"]).__name__}
    assert workspace.tensors["model[0].weight"].graph_name == "model.0.weight"
    assert workspace.tensors["loss"].graph_freed  # a second loss.backward() would fail in torch
    with pytest.raises(RuntimeError):
        ns["loss"].backward()


def test_labels_and_numel(workspace):
    assert workspace.tensors["loss"].label == "float32 scalar"
    assert workspace.tensors["model[0].weight"].label == "float32[2, 3]"
    assert workspace.tensors["model[0].weight"].numel == 6


def test_taken_names(workspace):
    for name in ("model", "xs", "opt", "torch", "nn", "np", "O", "step", "tmp", "helper", "arg",
                 "inner", "Thing", "managed", "count", "a", "b", "c"):
        assert name in workspace.taken, name
    assert "undefined_name" not in workspace.taken
    assert names_bound_in("x = (") == frozenset()  # a script that does not parse binds nothing
    assert "q" in describe({"q": 1}, "x = (").taken


def test_empty_workspace():
    w = Workspace.empty()
    assert (w.tensors, w.optimizers, w.modules, w.taken) == ({}, {}, {}, frozenset())


def test_describe_is_cheap_and_copies_nothing():
    torch_ns = engine.script.run(
        "import torch\nts = [torch.zeros(1000, requires_grad=True) * 2 for _ in range(2000)]\n")
    start = time.perf_counter()
    w = describe(torch_ns)
    elapsed = time.perf_counter() - start
    assert len(w.tensors) == 2000
    assert elapsed < 1.0  # thousands of tensors after every command: metadata only


def test_script_expression():
    assert script_expression("model.0.weight") == "model[0].weight"
    assert script_expression("net.layers.12.fc1.bias") == "net.layers[12].fc1.bias"
    assert script_expression("xs[0]") == "xs[0]"
    assert script_expression("layer2.weight") == "layer2.weight"


# -- edits ---------------------------------------------------------------------------------------

def _parses(src):
    ast.parse(src)
    return True


def test_append_one_newline_never_doubled():
    for src in ("x = 1", "x = 1\n"):
        edit = append_statement(src, "y = x * x")
        assert edit.source == "x = 1\ny = x * x\n"
        assert edit.line == 2
    # A blank line the script ends with is kept, one at most (File > New ends with one).
    for src in ("x = 1\n\n", "x = 1\n\n\n", "x = 1\n  \n"):
        edit = append_statement(src, "y = x * x")
        assert edit.source == "x = 1\n\ny = x * x\n"
        assert edit.line == 3
        assert edit.summary == "y = x * x"
    assert append_statement("", "y = 1") == CodeEdit("y = 1\n", 1, "y = 1")


def test_multi_line_code_and_line_after_imports():
    src = '"""Doc."""\nimport numpy as np\n\nx = np.ones(3)\n'
    edit = append_statement(src, "for i in range(2):\n    print(i)\n",
                            imports=("import torch", "import torch.nn.functional as F"))
    lines = edit.source.splitlines()
    assert lines[:4] == ['"""Doc."""', "import numpy as np", "import torch",
                         "import torch.nn.functional as F"]
    assert lines[edit.line - 1] == "for i in range(2):"
    assert edit.source.endswith("    print(i)\n")
    assert _parses(edit.source)


def test_imports_added_once_compared_by_meaning():
    src = "from torch.nn import functional as F\nimport torch\nx = torch.ones(2)\n"
    edit = append_statement(src, "y = F.relu(x)",
                            imports=("import torch", "import torch.nn.functional as F"))
    assert edit.source == src + "y = F.relu(x)\n"
    # added when missing, at line 1 when the script has no imports
    edit = append_statement("x = 1\n", "y = 2", imports=("import torch", "import torch"))
    assert edit.source == "import torch\nx = 1\ny = 2\n" and edit.line == 3
    # ``import torch.nn`` binds torch as well
    assert append_statement("import torch.nn\n", "y = 1", imports=("import torch",)).source == \
        "import torch.nn\ny = 1\n"


def test_imports_in_a_script_that_does_not_parse():
    src = "import torch\nx = (\n"
    edit = append_statement(src, "y = 1", imports=("import torch", "import numpy as np"))
    assert edit.source.splitlines()[:2] == ["import torch", "import numpy as np"]
    assert edit.source.count("import torch\n") == 1


def test_torch_and_functional_aliases():
    assert torch_import("import torch as T\n") == ("T", ())
    assert torch_import("import torch\n") == ("torch", ())
    assert torch_import("x = 1\n") == ("torch", ("import torch",))
    assert torch_alias("import torch as T\nimport torch.nn as nn\n") == "T"
    assert torch_alias("def f():\n    import torch as T\n") == "torch"  # only module level counts
    assert functional_import("import torch.nn.functional as fn\n") == ("fn", ())
    assert functional_import("from torch.nn import functional as G\n") == ("G", ())
    assert functional_import("from torch.nn import functional\n") == ("functional", ())
    assert functional_import("import torch\n") == ("F", ("import torch.nn.functional as F",))
    assert functional_import("import torch as T\nF = 2\n") == ("T.nn.functional", ())
    assert functional_import("x = 1\n", taken=frozenset({"F"})) == (
        "torch.nn.functional", ("import torch",))
    assert functional_alias("import torch\n") == "F"
    assert import_line_for("torch") == "import torch"
    assert import_line_for("torch.nn.functional", "F") == "import torch.nn.functional as F"


def test_build_error():
    e = BuildError("name", "'x' is taken")
    assert isinstance(e, ValueError)
    assert str(e) == "name: 'x' is taken"
    assert (e.field, e.message) == ("name", "'x' is taken")


def test_appended_code_runs_in_torch_with_the_alias():
    pytest.importorskip("torch")
    from engine.builder.check import apply_op

    src = "import torch as T\nx = T.tensor([1.0, -2.0], requires_grad=True)\n"
    w = describe(engine.script.run(src), src)
    edit = apply_op(src, w, "relu", ["x"], {}, "h")
    edit = apply_op(edit.source, describe(engine.script.run(edit.source), edit.source),
                    "exp", ["h"], {}, "e")
    assert "T.exp(h)" in edit.source and "import torch\n" not in edit.source
    ns = {}
    exec(edit.source, ns)
    assert ns["e"].grad_fn.name() == "ExpBackward0"
    engine_ns = engine.script.run(edit.source)
    assert engine_ns["e"].tolist() == pytest.approx(ns["e"].tolist())


def test_apply_op_refusals_name_the_field():
    from engine.builder.check import apply_op

    src = "import torch\nx = torch.ones(2, 3)\nv = torch.ones(4)\n"
    w = describe(engine.script.run(src), src)
    cases = [(("mul", ["x", "v"], {}, "y"), "operands"), (("mul", ["x", "x"], {}, "x"), "name"),
             (("mul", ["x", "x"], {}, "1y"), "name"), (("sum", ["x"], {"dim": "a"}, "s"), "dim"),
             (("mul", ["x"], {}, "y"), "operands")]
    for args, field in cases:
        with pytest.raises(BuildError) as e:
            apply_op(src, w, *args)
        assert e.value.field == field, args
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as t_err:
        torch.ones(2, 3) * torch.ones(4)
    with pytest.raises(BuildError) as e:
        apply_op(src, w, "mul", ["x", "v"], {}, "y")
    assert e.value.message == f"RuntimeError: {t_err.value}"


# -- names ---------------------------------------------------------------------------------------

def test_name_problems(workspace):
    assert name_problem("", workspace)
    assert "starts with a digit" in name_problem("1x", workspace)
    assert "'-'" in name_problem("my-name", workspace)
    assert "space" in name_problem("a b", workspace)
    assert "keyword" in name_problem("lambda", workspace)
    assert "builtin" in name_problem("sum", workspace)
    assert "builtin" in name_problem("print", workspace)
    assert name_problem("loss", workspace) == (
        "'loss' is already a tensor (float32 scalar) in the script")
    assert name_problem("count", workspace) == "'count' is already used in the script"
    assert "optimizer" in name_problem("opt", workspace)
    assert "module" in name_problem("model", workspace)
    assert name_problem("z", workspace) is None
    assert name_problem("match", workspace) is None  # a soft keyword is a legal name


def test_suggest_name(workspace):
    assert suggest_name("z", workspace) == "z"
    assert suggest_name("loss", workspace) == "loss1"
    assert suggest_name("y", workspace) == "y1"
    assert suggest_name("sum", workspace) == "sum1"
    w = describe({"s": 1, "s1": 2}, "s2 = 3\n")
    assert suggest_name("s", w) == "s3"


def test_best_matches_puts_the_op_named_by_the_query_first():
    from engine.builder.catalog import best_matches, search

    assert best_matches("sum")[0].id == "sum"  # not add, whose keywords say "sum"
    assert {op.id for op in best_matches("sum")} == {op.id for op in search("sum")}
    assert best_matches("mat")[0].id == "matmul"
    assert best_matches("soft")[0].id == "softmax"
    assert best_matches("loss")[0].group == "Losses"
    assert best_matches("") == search("")


def test_cached_verdicts_follow_the_layout_not_the_names():
    import engine.script
    from engine.builder.check import check_op
    from engine.builder.workspace import describe

    def ws(src):
        return describe(engine.script.run("import torch\n" + src), src)

    square = ws("a = torch.zeros(2, 3)\nb = torch.zeros(3, 2)\n")
    assert check_op("mm", ["a", "b"], {}, square).ok
    same_names = ws("a = torch.zeros(2, 3)\nb = torch.zeros(2, 3)\n")
    refused = check_op("mm", ["a", "b"], {}, same_names)
    assert not refused.ok and "cannot be multiplied" in refused.reason
    grad = ws("a = torch.zeros(2, 3, requires_grad=True)\nb = torch.zeros(3, 2)\n")
    assert check_op("mm", ["a", "b"], {}, grad).grad_fn == "MmBackward0"
    assert check_op("mm", ["a", "b"], {}, square).grad_fn is None
    assert check_op("sum", ["a"], {"dim": "1"}, square).shape == (2,)
    assert check_op("sum", ["a"], {"dim": "0"}, square).shape == (3,)


def test_graph_freed_follows_torch_below_the_root():
    """``graph_freed`` says whether a backward through the tensor would fail in torch: also when
    only a shared part below it was freed (by another tensor's backward), and not when nothing
    was; a freed root answers without the walk below it."""
    import engine

    x = engine.tensor([1.0, 2.0], requires_grad=True)
    h = (x * 3).tanh()
    a = h.sum()
    b = (h * 2).sum()
    before = describe({"x": x, "h": h, "a": a, "b": b})
    assert not before.tensors["b"].graph_freed and not before.tensors["a"].graph_freed
    a.backward()  # frees h's part, shared with b
    after = describe({"x": x, "h": h, "a": a, "b": b})
    assert after.tensors["a"].graph_freed and after.tensors["b"].graph_freed
    assert after.tensors["h"].graph_freed
    with pytest.raises(RuntimeError):
        b.backward()  # as graph_freed said: torch raises here too
