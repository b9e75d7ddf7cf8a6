"""Building with nn modules, the way PyTorch tutorials do: New Layer, then ``out = model(X)``.

Driven through the real widgets (pytest-qt, offscreen, no sleeps). The engine's random stream is
not torch's, so ``nn.Linear``'s initial weights differ between the two: the text is run in torch
for its validity, and the training is judged by the engine's own losses.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.app.builder.test_journeys import (  # noqa: F401 - blank is a fixture
    add_optimizer_and_loop,
    apply_op,
    blank,
    engine_names,
    graph_has,
    new_tensor,
    pick,
    run_in_torch,
    wait_built,
)
from tests.app.window_support import wait_idle

torch = pytest.importorskip("torch")

X_VALUES = "[[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]"
Y_VALUES = "[[0.0], [1.0], [1.0], [2.0]]"


def new_layer(qtbot, window, name: str, sizes: str, *, kind: str = "mlp",
              activation: str = "ReLU") -> None:
    window.actions_by_id["build.new_layer"].trigger()
    dialog = window.builder.dialog
    qtbot.waitUntil(dialog.isVisible)
    dialog.set_kind(kind)
    dialog.name_edit.setText(name)
    dialog.sizes_edit.setText(sizes)
    dialog.activation_combo.setCurrentText(activation)
    assert dialog.ok_button.isEnabled(), dialog.fields.shown_errors()
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.controller.snapshot.workspace is not None
                    and name in window.controller.snapshot.workspace.modules
                    and window.controller.snapshot.status == "finished", timeout=20000)
    wait_idle(qtbot, window)


def call_module(qtbot, window, module: str, name: str) -> None:
    """Modules ▸ module(A) with the picked tensor as A, named ``name``."""
    panel = window.builder.panel
    qtbot.waitUntil(lambda: f"module:{module}" in panel._module_ops)
    panel.search.clear()
    panel.select_op(f"module:{module}")
    panel.name_edit.clear()
    qtbot.keyClicks(panel.name_edit, name)
    assert panel.apply_button.isEnabled(), panel.detail.text() or panel.about.text()
    qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    wait_built(qtbot, window, f"t:{name}")


def test_an_mlp_module_trains_10_iterations(qtbot, blank):
    window = blank
    new_tensor(qtbot, window, "X", X_VALUES, requires_grad=False)
    new_tensor(qtbot, window, "Y", Y_VALUES, requires_grad=False)
    new_layer(qtbot, window, "model", "2, 8, 1")
    text = window.editor.toPlainText()
    assert "model = torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.ReLU(), " \
           "torch.nn.Linear(8, 1))\n" in text

    panel = window.builder.panel
    # The Modules group lists the module; with Y as A the call is PyTorch's refusal.
    pick(qtbot, window, "Y")
    item = panel.op_item("module:model")
    assert item.text(0) == "model(a)" and not item.parent().isHidden()
    assert panel.verdicts["module:model"].reason == \
        "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x1 and 2x8)"
    assert item.toolTip(0) == panel.verdicts["module:model"].reason  # greyed, with the reason

    pick(qtbot, window, "X")
    assert panel.verdicts["module:model"].ok
    assert panel.verdicts["module:model"].grad_fn == "AddmmBackward0"
    call_module(qtbot, window, "model", "out")
    assert window.editor.toPlainText().endswith("out = model(X)\n")
    pick(qtbot, window, "out", "Y")
    apply_op(qtbot, window, "mse_loss", "loss")

    add_optimizer_and_loop(qtbot, window, ["model"], lr="0.1", iterations=10)

    text = window.editor.toPlainText()
    assert "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)" in text
    assert "    out = model(X)" in text and "    loss.backward()" in text
    assert window.controller.session.counters.step == 10
    torch.manual_seed(0)
    theirs = run_in_torch(text)  # real PyTorch runs the same text without an error
    assert theirs["loss"].shape == torch.Size([]) and theirs["out"].shape == (4, 1)
    assert theirs["out"].grad_fn.name() == "AddmmBackward0"
    losses = [value for _, value in window.controller.session.losses]
    assert len(losses) == 10 and losses[-1] < losses[0]
    ours = engine_names(window)
    assert ours["out"].grad_fn.name() == "AddmmBackward0"
    graph = window.controller.snapshot.graph
    addmm = [a for _, a in graph.nodes(data=True) if a.get("node_name") == "AddmmBackward0"]
    assert len(addmm) == 2
    assert all((a.get("group") or "").startswith("model") for a in addmm), \
        [a.get("group") for a in addmm]


def test_a_linear_layer_and_the_forms_refusals(qtbot, blank):
    window = blank
    new_tensor(qtbot, window, "X", X_VALUES, requires_grad=False)
    new_layer(qtbot, window, "fc1", "2, 3", kind="linear")
    assert window.editor.toPlainText().endswith("fc1 = torch.nn.Linear(2, 3)\n")

    window.actions_by_id["build.new_layer"].trigger()
    dialog = window.builder.dialog
    qtbot.waitUntil(dialog.isVisible)
    assert dialog.name_edit.text() == "model"  # the first free name
    dialog.name_edit.setText("fc1")
    assert dialog.fields.error("name") == "'fc1' is already a module (Linear) in the script"
    dialog.name_edit.setText("model")
    dialog.sizes_edit.setText("2, x, 1")
    assert "'x' is not a whole number" in dialog.fields.error("sizes")
    assert not dialog.ok_button.isEnabled()
    dialog.set_kind("linear")
    assert not dialog.fields.field_visible("activation")
    dialog.sizes_edit.setText("2, 8, 1")
    assert "exactly 2 sizes" in dialog.fields.error("sizes")
    dialog.sizes_edit.setText("2, 4")
    dialog.bias_check.setChecked(False)
    assert dialog.ok_button.isEnabled()
    assert dialog.preview.text() == f"{dialog.name_edit.text()} = torch.nn.Linear(2, 4, bias=False)"
    dialog.reject()

    # the panel's button opens the same form
    panel = window.builder.panel
    qtbot.mouseClick(panel.new_layer_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.builder.dialog is not None
                    and window.builder.dialog.isVisible())
    assert type(window.builder.dialog).__name__ == "NewLayerDialog"
    window.builder.dialog.reject()


def test_screenshots_of_building_with_modules(qtbot, blank):
    """For people to open and look at (never compared): the Modules group, a refused layer."""
    from tests.app.test_screenshots import shoot

    window = blank
    new_tensor(qtbot, window, "X", X_VALUES, requires_grad=False)
    new_tensor(qtbot, window, "W", "[[1.0, 2.0, 3.0]]", requires_grad=False)
    new_layer(qtbot, window, "model", "2, 8, 1")
    new_layer(qtbot, window, "fc1", "2, 4", kind="linear")
    pick(qtbot, window, "X")
    call_module(qtbot, window, "model", "out")
    panel = window.builder.panel
    pick(qtbot, window, "W")
    panel.select_op("module:model")
    panel.op_tree.scrollToItem(panel.op_item("module:fc1"))
    assert not panel.apply_button.isEnabled()
    assert "mat1 and mat2 shapes cannot be multiplied (1x3 and 2x8)" in panel.detail.text()
    window.actions_by_id["view.fit"].trigger()
    shoot(window, "23_build_modules")

    window.actions_by_id["build.new_layer"].trigger()
    dialog = window.builder.dialog
    qtbot.waitUntil(dialog.isVisible)
    folder = shoot(window, "24_build_new_layer_window").parent
    assert dialog.ok_button.isEnabled()
    assert dialog.grab().save(str(folder / "25_build_new_layer.png"))
    dialog.sizes_edit.setText("2, 0, 1")
    dialog.name_edit.setText("fc1")
    assert not dialog.ok_button.isEnabled()
    image = dialog.grab()
    assert image.save(str(folder / "24_build_new_layer_error.png"))
    dialog.reject()


MODULES_SCRIPT = """\
import torch
X = torch.zeros(4, 2)
Z = torch.zeros(4, 3)
model = torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
"""


def test_the_palettes_modules_group(qtbot):
    """The panel alone: the group follows the workspace's modules, search finds them, a refusal
    is greyed with torch's words and Apply writes ``out = model(X)``."""
    import engine.script
    from app.builder import BuildPanel
    from engine.builder.workspace import describe

    panel = BuildPanel()
    qtbot.addWidget(panel)
    group = panel._group_items["Modules"]
    assert group.isHidden()  # no modules yet
    workspace = describe(engine.script.run(MODULES_SCRIPT), MODULES_SCRIPT)
    panel.set_workspace(workspace, MODULES_SCRIPT)
    assert not group.isHidden() and group.childCount() == 1
    assert panel.op_tree.topLevelItem(panel.op_tree.topLevelItemCount() - 1) is group  # last

    panel.set_selection(["Z"])
    verdict = panel.verdicts["module:model"]
    assert verdict.reason == "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x3 and 2x8)"
    assert panel.op_item("module:model").text(1) == verdict.reason

    panel.set_selection(["X"])
    panel.search.setText("model")
    assert panel.visible_ops() == ["module:model"]
    panel.pick_first_match()
    assert panel.op.id == "module:model" and panel.name_edit.text() == "out"
    assert panel.line() == "out = model(X)"
    edits = []
    panel.edit_requested.connect(edits.append)
    panel.apply()
    assert edits and edits[0].source == MODULES_SCRIPT + "out = model(X)\n"

    # the module goes away (the line was undone): the group empties and the op is let go
    script = MODULES_SCRIPT.replace("model = ", "# model = ")
    panel.set_workspace(describe(engine.script.run(script), script), script)
    panel.search.clear()
    assert group.isHidden() and panel.op is None
    assert "module:model" not in panel.verdicts
