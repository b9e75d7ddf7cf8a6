"""Scripts import ``torch.nn.utils.rnn`` (the packed-sequence helpers RNN tutorials use)."""

from __future__ import annotations

import numpy as np

from engine.script import run

SCRIPT = """import torch
import torch.nn.utils.rnn as rnn_utils
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence
padded = pad_sequence([torch.ones(3), torch.ones(1) * 2], batch_first=True)
packed = pack_padded_sequence(padded, [3, 1], batch_first=True)
back, lengths = rnn_utils.pad_packed_sequence(packed, batch_first=True)
"""


def test_the_packed_sequence_helpers_run_in_a_script():
    ns = run(SCRIPT)
    assert ns["padded"].tolist() == [[1.0, 1.0, 1.0], [2.0, 0.0, 0.0]]
    assert ns["lengths"].tolist() == [3, 1]
    np.testing.assert_array_equal(ns["back"].numpy(), ns["padded"].numpy())
    assert ns["packed"].batch_sizes.tolist() == [2, 1, 1]
