"""Small things a new user reads (issue 16's review): counts of one in the singular, and a
recording's Build panel that does not list the previous script's tensors."""

from __future__ import annotations

import pytest

from app.words import counted
from tests.app.test_document_state import paste_over_everything
from tests.app.window_support import trigger, wait_idle


@pytest.mark.parametrize("n, text", [(0, "0 buffers"), (1, "1 buffer"), (2, "2 buffers")])
def test_counts_of_one_are_singular(n, text):
    assert counted(n, "buffer") == text


def test_one_gradient_buffer_is_one_buffer(qtbot, make_window):
    window = make_window(open_demo=False)
    window.ensure_panels()
    paste_over_everything(window.editor, "import torch\nw = torch.ones(2, requires_grad=True)\n"
                                         "(w * 3).sum().backward()\n")
    wait_idle(qtbot, window)
    trigger(qtbot, window, "debug.continue")
    panel = window.panels["buffers"]
    qtbot.waitUntil(lambda: panel.status.text().startswith("1 "))
    assert panel.status.text().startswith("1 buffer,")


def test_a_recording_leaves_no_tensors_of_the_previous_script_in_the_build_panel(
        qtbot, make_window, tmp_path):
    torch = pytest.importorskip("torch")
    import engine.record as record

    window = make_window()  # the demo: its tensors are listed
    qtbot.waitUntil(lambda: window.controller.session is not None)
    wait_idle(qtbot, window)
    window.ensure_panels()
    panel = window.builder.panel
    qtbot.waitUntil(lambda: panel.tensor_list.count() > 0)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    loss = (x * 3).sum()
    path = tmp_path / "rec.gstep"
    record.record_backward(loss, path, names={"x": x, "loss": loss})
    assert window.open_path(str(path))
    wait_idle(qtbot, window)
    assert panel.tensor_list.count() == 0
    assert not panel.body.isEnabled() and "recorded from PyTorch" in panel.banner.text()
