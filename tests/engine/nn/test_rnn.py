"""RNN, LSTM, GRU and their cells against torch.nn.

Each snippet seeds both libraries, builds the module (so its init draws from the same stream),
runs it and backpropagates; ``check`` compares outputs, hidden states, every parameter's value
and grad, the input's grad and the whole grad_fn graph (PyTorch's nodes: the cells' ops for RNN
and GRU, one ``MkldnnRnnLayerBackward0`` per layer and direction for a float32 LSTM).
"""

from __future__ import annotations

import numpy as np
import pytest

import engine
from tests.engine.differential import check
from tests.engine.nn.test_nn import same_error

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(3)
X = RNG.standard_normal((5, 2, 3))
H = RNG.standard_normal((4, 2, 4))
C = RNG.standard_normal((4, 2, 4))


def _grad_for(t):
    return np.cos(np.arange(t.numel())).reshape(tuple(t.shape))


def module_snippet(cls, kwargs, x=X, hidden=None, dtype="float32", train=True, which=0):
    """``cls(3, 4, **kwargs)`` after manual_seed(0), run on ``x`` (and ``hidden``: arrays, or a
    pair for LSTM), backward from output ``which`` (0: output, 1: the hidden state)."""

    def snippet(torch):
        torch.manual_seed(0)
        m = getattr(torch.nn, cls)(3, 4, **kwargs)
        if dtype == "float64":
            m = m.double()
        m.train(train)
        xt = torch.tensor(x.astype(dtype), requires_grad=True)
        args = [xt]
        hs = ()
        if hidden is not None:
            hs = tuple(torch.tensor(h.astype(dtype), requires_grad=True) for h in hidden)
            args.append(hs if len(hs) == 2 else hs[0])
        out = m(*args)
        first = out[which]
        if isinstance(first, tuple):
            first = first[0]
        first.backward(torch.tensor(_grad_for(first), dtype=first.dtype))
        return {"out": out, "x": xt, "hidden": hs, "params": dict(m.named_parameters()),
                "names": [n for n, _ in m.named_parameters()], "repr": repr(m)}

    return snippet


CONFIGS = [
    ("RNN", {}),
    ("RNN", {"nonlinearity": "relu", "num_layers": 2}),
    ("RNN", {"bias": False, "batch_first": True}),
    ("RNN", {"num_layers": 2, "bidirectional": True}),
    ("GRU", {}),
    ("GRU", {"batch_first": True, "bias": False}),
    ("GRU", {"num_layers": 2, "bidirectional": True}),
    ("LSTM", {}),
    ("LSTM", {"batch_first": True}),
    ("LSTM", {"bias": False}),
    ("LSTM", {"num_layers": 2, "bidirectional": True}),
]


def _x_for(kwargs):
    return X.transpose(1, 0, 2).copy() if kwargs.get("batch_first") else X


@pytest.mark.parametrize("cls,kwargs", CONFIGS, ids=lambda v: str(v))
def test_module_matches_torch(cls, kwargs):
    check(module_snippet(cls, kwargs, x=_x_for(kwargs)), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("cls,kwargs", CONFIGS, ids=lambda v: str(v))
def test_module_from_the_hidden_state(cls, kwargs):
    """Backward from h_n only, with given initial states that require grad."""
    n = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    hidden = (H[:n], C[:n]) if cls == "LSTM" else (H[:n],)
    check(module_snippet(cls, kwargs, x=_x_for(kwargs), hidden=hidden, which=1),
          rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kwargs", [{}, {"batch_first": True},
                                    {"num_layers": 2, "bidirectional": True},
                                    {"proj_size": 2}, {"proj_size": 3, "num_layers": 2}],
                         ids=str)
def test_lstm_float64_and_projections_run_the_cells(kwargs):
    """Without oneDNN (float64, or proj_size) PyTorch records LSTMCell's ops step by step."""
    check(module_snippet("LSTM", kwargs, x=_x_for(kwargs), dtype="float64"))


def test_lstm_with_projections_float32():
    check(module_snippet("LSTM", {"proj_size": 2}), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("cls", ["RNN", "GRU", "LSTM"])
def test_dropout_between_layers_draws_torchs_masks(cls):
    check(module_snippet(cls, {"num_layers": 3, "dropout": 0.4}), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("cls", ["RNN", "GRU", "LSTM"])
def test_dropout_is_off_in_eval(cls):
    check(module_snippet(cls, {"num_layers": 2, "dropout": 0.4}, train=False),
          rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("cls", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_unbatched_input(cls, batch_first):
    hidden = (H[:1, 0], C[:1, 0]) if cls == "LSTM" else (H[:1, 0],)
    check(module_snippet(cls, {"batch_first": batch_first}, x=X[:, 0], hidden=hidden),
          rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("cls,kwargs", [
    ("RNN", {"num_layers": 2, "bidirectional": True}),
    ("GRU", {"bias": False}),
    ("LSTM", {"num_layers": 2, "proj_size": 2, "bidirectional": True}),
    ("RNNCell", {"nonlinearity": "relu"}),
    ("LSTMCell", {}),
    ("GRUCell", {"bias": False}),
])
def test_seeded_init_is_bit_exact(cls, kwargs):
    torch.manual_seed(7)
    engine.manual_seed(7)
    expected = getattr(torch.nn, cls)(3, 4, **kwargs).state_dict()
    actual = getattr(engine.nn, cls)(3, 4, **kwargs).state_dict()
    assert list(expected) == list(actual)
    for name in expected:
        assert np.array_equal(expected[name].numpy(), actual[name].numpy()), name
    assert np.array_equal(torch.rand(3).numpy(), engine.rand(3).numpy())  # same draws consumed


def cell_snippet(cls, kwargs, x, hidden=None, dtype="float32"):
    def snippet(torch):
        torch.manual_seed(1)
        m = getattr(torch.nn, cls)(3, 4, **kwargs)
        if dtype == "float64":
            m = m.double()
        xt = torch.tensor(x.astype(dtype), requires_grad=True)
        args = [xt]
        hs = ()
        if hidden is not None:
            hs = tuple(torch.tensor(h.astype(dtype), requires_grad=True) for h in hidden)
            args.append(hs if cls == "LSTMCell" else hs[0])
        out = m(*args)
        first = out[0] if isinstance(out, tuple) else out
        first.backward(torch.tensor(_grad_for(first), dtype=first.dtype))
        return {"out": out, "x": xt, "hidden": hs, "params": dict(m.named_parameters()),
                "repr": repr(m)}

    return snippet


CELLS = [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu", "bias": False}),
         ("LSTMCell", {}), ("LSTMCell", {"bias": False}), ("GRUCell", {}),
         ("GRUCell", {"bias": False})]


@pytest.mark.parametrize("cls,kwargs", CELLS, ids=str)
def test_cell_matches_torch(cls, kwargs):
    check(cell_snippet(cls, kwargs, X[0]))


@pytest.mark.parametrize("cls,kwargs", CELLS, ids=str)
def test_cell_with_hidden_and_unbatched(cls, kwargs):
    hidden = (H[0], C[0]) if cls == "LSTMCell" else (H[0],)
    check(cell_snippet(cls, kwargs, X[0], hidden, dtype="float64"))
    one = (H[0, 0], C[0, 0]) if cls == "LSTMCell" else (H[0, 0],)
    check(cell_snippet(cls, kwargs, X[0, 0], one))



@pytest.mark.parametrize("build", [
    lambda t: t.nn.RNN(3, 4)(t.zeros(5, 2, 2)),
    lambda t: t.nn.RNN(3, 4)(t.zeros(5, 2, 3, 1)),
    lambda t: t.nn.GRU(3, 4)(t.zeros(3)),
    lambda t: t.nn.LSTM(3, 4)(t.zeros(3)),
    lambda t: t.nn.RNN(3, 4)(t.zeros(5, 2, 3), t.zeros(1, 3, 4)),
    lambda t: t.nn.RNN(3, 4)(t.zeros(5, 2, 3), t.zeros(3, 4)),
    lambda t: t.nn.RNN(3, 4)(t.zeros(5, 3), t.zeros(1, 1, 4)),
    lambda t: t.nn.LSTM(3, 4)(t.zeros(5, 2, 3), (t.zeros(1, 2, 4), t.zeros(1, 2, 5))),
    lambda t: t.nn.LSTM(3, 4)(t.zeros(5, 2, 3), (t.zeros(1, 3, 4), t.zeros(1, 2, 4))),
    lambda t: t.nn.LSTM(3, 4)(t.zeros(5, 2, 3), (t.zeros(2, 4), t.zeros(1, 2, 4))),
    lambda t: t.nn.LSTM(3, 4)(t.zeros(5, 2, 3, dtype=t.float64)),
    lambda t: t.nn.RNN(3, 4, nonlinearity="sigmoid"),
    lambda t: t.nn.GRU(3, 4, proj_size=2),
    lambda t: t.nn.LSTM(3, 4, proj_size=4),
    lambda t: t.nn.LSTM(3, 4, proj_size=-1),
    lambda t: t.nn.LSTM(3, 4, dropout=1.5),
    lambda t: t.nn.LSTM(3, 4, bias=1),
    lambda t: t.nn.LSTM(3, 0),
    lambda t: t.nn.LSTM(3.0, 4),
    lambda t: t.nn.LSTM(3, 4, num_layers=0),
    lambda t: t.nn.RNNCell(3, 4)(t.zeros(2, 2)),
    lambda t: t.nn.RNNCell(3, 4)(t.zeros(2, 3, 1)),
    lambda t: t.nn.RNNCell(3, 4)(t.zeros(2, 3), t.zeros(3, 4)),
    lambda t: t.nn.RNNCell(3, 4)(t.zeros(2, 3), t.zeros(2, 5)),
    lambda t: t.nn.GRUCell(3, 4)(t.zeros(2, 3), t.zeros(2, 4, 1)),
    lambda t: t.nn.LSTMCell(3, 4)(t.zeros(2, 3), (t.zeros(2, 4), t.zeros(3, 4))),
    lambda t: t.nn.LSTMCell(3, 4)(t.zeros(2, 3), (t.zeros(2, 4), t.zeros(2, 4, 1))),
], ids=range(27))
def test_errors_match_torch(build):
    same_error(build)


def test_dropout_with_one_layer_warns():
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        engine.nn.GRU(3, 4, dropout=0.5)


def test_lstm_type_and_flat_weights():
    m = engine.nn.LSTM(3, 4, num_layers=2)
    t = torch.nn.LSTM(3, 4, num_layers=2)
    assert str(type(m)) == str(type(t))
    assert [tuple(w.shape) for w in m._flat_weights] == [tuple(w.shape) for w in t._flat_weights]
    assert [[tuple(w.shape) for w in ws] for ws in m.all_weights] == \
        [[tuple(w.shape) for w in ws] for ws in t.all_weights]


def test_fused_lstm_frees_its_saved_state():
    m = engine.nn.LSTM(3, 4)
    out, _ = m(engine.randn(5, 2, 3))
    out.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        out.sum().backward()
