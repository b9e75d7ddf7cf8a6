"""The graph's drawn pieces: values printed as PyTorch prints them, and a node's border that
tells the running node from those that already ran."""

from __future__ import annotations

import numpy as np
import pytest

from app.graph_items import DARK, LIGHT, format_array, node_style

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("values", [
    [0.849, 0.9141], [1.0, 2.5, 3.0], [1e-6, 2.0], [float("nan"), 1.0], [[1.0, 2.5], [3.0, 4.0]],
    [1, 2, 3], [True, False], 0.849, 3,
])
def test_small_arrays_read_as_torch_prints_them(values):
    t = torch.tensor(values)
    printed = repr(t)[len("tensor("):-1].split(", dtype=")[0]
    assert format_array(t.numpy()) == " ".join(line.strip() for line in printed.splitlines())


def test_a_big_array_is_its_norm():
    assert format_array(np.full(16, 0.5)) == "‖·‖=2"


@pytest.mark.parametrize("colours", [LIGHT, DARK])
def test_the_running_node_looks_unlike_the_nodes_that_already_ran(colours):
    attrs = {"kind": "function", "label": "MulBackward0"}
    plain = node_style(attrs, colours)
    ran = node_style({**attrs, "executed": True}, colours)
    running = node_style({**attrs, "executed": True}, colours, executing=True)
    assert ran.border != plain.border  # a node that ran is marked
    assert running.fill != ran.fill and running.halo and not ran.halo
