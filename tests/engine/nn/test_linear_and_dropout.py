"""``F.linear`` and ``F.dropout`` on inputs whose memory layout differs from their logical order
(a transposed batch, as ``batch_first`` layers make): PyTorch folds only contiguous input into one
addmm (otherwise matmul then ``add_``, so the output's version is 1), and draws a dropout mask in
the input's memory order."""

from __future__ import annotations

import numpy as np
import pytest

from tests.engine.differential import check

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(21)
X = RNG.standard_normal((2, 5, 3)).astype(np.float32)
W = RNG.standard_normal((4, 3)).astype(np.float32)
B = RNG.standard_normal(4).astype(np.float32)


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "vector", "4d"])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_graph_follows_the_layout(layout, bias):
    def snippet(torch):
        x = torch.tensor(X, requires_grad=True)
        inp = {"contiguous": x, "transposed": x.transpose(0, 1), "vector": x[0, 0],
               "4d": x.view(2, 5, 1, 3)}[layout]
        w = torch.tensor(W, requires_grad=True)
        b = torch.tensor(B, requires_grad=True) if bias else None
        out = torch.nn.functional.linear(inp, w, b)
        out.sum().backward()
        return {"out": out, "x": x, "w": w, "b": b}

    check(snippet)


@pytest.mark.parametrize("view", [lambda x: x, lambda x: x.transpose(0, 1),
                                  lambda x: x.permute(2, 0, 1), lambda x: x[:, ::2]],
                         ids=["plain", "transposed", "permuted", "strided"])
def test_dropout_mask_follows_memory_order(view):
    def snippet(torch):
        torch.manual_seed(5)
        x = torch.tensor(X, requires_grad=True)
        out = torch.nn.functional.dropout(view(x), 0.4)
        out.sum().backward()
        return {"out": out, "x": x, "after": torch.rand(2)}

    check(snippet)
