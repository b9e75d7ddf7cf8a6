"""``nn.utils.rnn`` and RNNs over packed sequences, against torch: the packed data and batch
sizes, padding back (values, lengths, the ``CopySlices`` graph), sorting with
``enforce_sorted=False``, RNN / GRU / LSTM over packed input (PyTorch's PackedLayer graph,
hidden states in the caller's order) and the errors."""

from __future__ import annotations

import numpy as np
import pytest

from tests.engine.differential import check
from tests.engine.nn.test_nn import same_error

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(12)
PADDED = RNG.standard_normal((4, 3, 2)).astype(np.float32)


def _grad_for(t):
    return np.cos(np.arange(t.numel())).reshape(tuple(t.shape))


def _backward(torch, t):
    t.backward(torch.tensor(_grad_for(t), dtype=t.dtype))


@pytest.mark.parametrize("lengths,batch_first,enforce_sorted", [
    ([4, 2, 1], False, True), ([4, 4, 3], False, True), ([2, 4, 1], False, False),
    ([3, 1, 3], True, False),
], ids=str)
def test_pack_then_pad(lengths, batch_first, enforce_sorted):
    x = PADDED.transpose(1, 0, 2).copy() if batch_first else PADDED

    def snippet(torch):
        rnn = torch.nn.utils.rnn
        xt = torch.tensor(x, requires_grad=True)
        packed = rnn.pack_padded_sequence(xt, lengths, batch_first=batch_first,
                                          enforce_sorted=enforce_sorted)
        padded, lens = rnn.pad_packed_sequence(packed, batch_first=batch_first,
                                               padding_value=-1.0, total_length=5)
        _backward(torch, padded)
        return {"data": packed.data, "batch_sizes": packed.batch_sizes,
                "sorted": packed.sorted_indices, "unsorted": packed.unsorted_indices,
                "padded": padded, "lengths": lens, "x": xt, "type": str(type(packed))}

    check(snippet)


@pytest.mark.parametrize("kwargs", [{}, {"batch_first": True, "padding_value": 2.0},
                                    {"padding_side": "left"}], ids=str)
def test_pad_sequence_and_pack_sequence(kwargs):
    def snippet(torch):
        rnn = torch.nn.utils.rnn
        seqs = [torch.tensor(PADDED[:n, i], requires_grad=True) for i, n in enumerate((3, 4, 1))]
        padded = rnn.pad_sequence(seqs, **kwargs)
        _backward(torch, padded)
        packed = rnn.pack_sequence(seqs, enforce_sorted=False)
        back = rnn.unpack_sequence(packed)
        return {"padded": padded, "seqs": tuple(seqs), "packed": packed.data,
                "sizes": packed.batch_sizes, "back": tuple(back)}

    check(snippet)


@pytest.mark.parametrize("cls,kwargs", [
    ("RNN", {}), ("GRU", {"num_layers": 2, "bidirectional": True}),
    ("LSTM", {}), ("LSTM", {"bidirectional": True, "num_layers": 2, "dropout": 0.3}),
    ("LSTM", {"proj_size": 2}), ("RNN", {"batch_first": True, "nonlinearity": "relu"}),
], ids=str)
@pytest.mark.parametrize("with_hidden", [False, True])
def test_rnn_over_packed_input(cls, kwargs, with_hidden):
    lengths = [2, 4, 1]
    dirs = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    batch_first = kwargs.get("batch_first", False)
    x = PADDED.transpose(1, 0, 2).copy() if batch_first else PADDED

    def snippet(torch):
        torch.manual_seed(0)
        m = getattr(torch.nn, cls)(2, 3, **kwargs)
        xt = torch.tensor(x, requires_grad=True)
        packed = torch.nn.utils.rnn.pack_padded_sequence(xt, lengths, batch_first=batch_first,
                                                         enforce_sorted=False)
        args = [packed]
        hs = ()
        if with_hidden:
            size = kwargs.get("proj_size") or 3
            h = torch.tensor(RNG.standard_normal((dirs, 3, size)).astype(np.float32) * 0 +
                             np.arange(dirs * 3 * size, dtype=np.float32).reshape(
                                 dirs, 3, size) / 10, requires_grad=True)
            hs = (h, torch.ones(dirs, 3, 3, requires_grad=True)) if cls == "LSTM" else (h,)
            args.append(hs if cls == "LSTM" else h)
        out, hidden = m(*args)
        first = hidden[0] if isinstance(hidden, tuple) else hidden
        total = (out.data * torch.tensor(_grad_for(out.data))).sum() + \
            (first * torch.tensor(_grad_for(first))).sum()
        total.backward()
        return {"out": out.data, "sizes": out.batch_sizes, "hidden": hidden, "x": xt,
                "hs": hs, "params": dict(m.named_parameters()), "type": str(type(out))}

    check(snippet, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("build", [
    lambda t: t.nn.utils.rnn.pack_padded_sequence(t.zeros(4, 3, 2), [2, 4, 1]),
    lambda t: t.nn.utils.rnn.pack_padded_sequence(t.zeros(4, 3, 2), [4, 2, 0]),
    lambda t: t.nn.utils.rnn.pack_padded_sequence(t.zeros(4, 3, 2), [4, 2]),
    lambda t: t.nn.utils.rnn.pad_packed_sequence(
        t.nn.utils.rnn.pack_padded_sequence(t.zeros(4, 3, 2), [4, 2, 1]), total_length=2),
    lambda t: t.nn.utils.rnn.pad_sequence([]),
    lambda t: t.nn.GRU(3, 3)(t.nn.utils.rnn.pack_padded_sequence(t.zeros(4, 3, 2), [4, 2, 1])),
], ids=range(6))
def test_errors_match_torch(build):
    same_error(build)
