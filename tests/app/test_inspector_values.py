"""The Inspector writes values as PyTorch prints them (``[ 0.7440,  1.5210]``, not numpy's
``[0.744 , 1.521 ]``): its text is torch's ``repr`` without the ``tensor(...)`` around it."""

from __future__ import annotations

import numpy as np
import pytest

from app.inspector import array_text

torch = pytest.importorskip("torch")

CASES = [
    np.array([0.849, 0.9141], np.float32),
    np.array([[0.0316, -0.4927], [0.744, 1.521], [2.3022, -1.4689]], np.float32),
    np.array([2.0, 4.0, 6.0], np.float32),
    np.array([1e-5, 3.0], np.float32),
    np.array([1, 2, 3]),
    np.array(17.0, np.float32),
]


@pytest.mark.parametrize("values", CASES, ids=lambda v: str(v.shape))
def test_values_read_as_torch_prints_them(values):
    text = repr(torch.from_numpy(values))
    body = text[len("tensor("):].split(", dtype=")[0].rstrip(")")
    # torch indents continuation lines under "tensor(": the inspector's text starts at column 0
    expected = "\n".join(line[len("tensor("):] if i else line
                         for i, line in enumerate(body.split("\n")))
    assert array_text(values) == expected
