"""engine.nn against torch.nn: modules, functional layers and losses, init, state_dict.

Most tests are differential: a snippet ``lambda lib: ...`` runs once with ``torch`` and once with
``engine``, loading the same weights into both, and ``tests.engine.differential.check`` compares
everything it returns (values, dtypes, grads, the grad_fn graph with next_functions, flags,
versions).
"""

from __future__ import annotations

import copy
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import engine
from tests.engine.differential import check, first_line

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)
W34 = RNG.standard_normal((4, 3)).astype(np.float32)
B4 = RNG.standard_normal(4).astype(np.float32)
X53 = RNG.standard_normal((5, 3)).astype(np.float32)
P53 = RNG.uniform(0.05, 0.95, (5, 3)).astype(np.float32)
T53 = RNG.uniform(0, 1, (5, 3)).astype(np.float32)
CLASSES5 = np.array([0, 2, 1, 2, 0])


def _linear(lib, bias=True):
    m = lib.nn.Linear(3, 4, bias=bias)
    state = {"weight": lib.tensor(W34)}
    if bias:
        state["bias"] = lib.tensor(B4)
    m.load_state_dict(state)
    return m


def _error(lib, snippet):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            snippet(lib)
        except Exception as e:
            return type(e).__name__, first_line(e)
    return None


def same_error(snippet):
    expected = _error(torch, snippet)
    assert expected is not None, "torch did not raise"
    assert _error(engine, snippet) == expected


# -- Parameter -------------------------------------------------------------------------------------

def test_parameter_basics():
    def snippet(lib):
        data = lib.tensor([1.0, 2.0])
        p = lib.nn.Parameter(data)
        frozen = lib.nn.Parameter(lib.ones(2), requires_grad=False)
        with lib.no_grad():
            data.mul_(3)  # a Parameter shares memory (and version counter) with its data
        y = p * 2
        return (p, frozen, y, repr(p), repr(frozen), isinstance(p, lib.Tensor),
                type(y).__name__, type(p.detach()).__name__, lib.nn.Parameter().shape)

    check(snippet)


def test_parameter_deepcopy_and_int_dtype():
    def snippet(lib):
        p = lib.nn.Parameter(lib.tensor([1.0, 2.0]))
        p.grad = lib.tensor([0.5, 0.5])
        q = copy.deepcopy(p)
        with lib.no_grad():
            q.add_(1)
        return p, q, type(q).__name__, q.grad

    check(snippet)
    same_error(lambda lib: lib.nn.Parameter(lib.tensor([1, 2])))
    same_error(lambda lib: lib.nn.Parameter([1.0]))
    check(lambda lib: lib.nn.Parameter(lib.tensor([1, 2]), requires_grad=False))


# -- Module ----------------------------------------------------------------------------------------

def _net_class(lib):
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 4)
            self.act = nn.Tanh()
            self.register_buffer("running", lib.zeros(4))
            self.register_buffer("scratch", lib.ones(1), persistent=False)

        def forward(self, x):
            return self.act(self.fc(x))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.block = Block()
            self.layers = nn.ModuleList([nn.Linear(4, 4), nn.Linear(4, 4)])
            self.head = nn.Sequential(nn.ReLU(), nn.Linear(4, 2, bias=False))
            self.scale = nn.Parameter(lib.ones(()))
            self.shared = self.head[1]  # the same module twice: listed once

        def forward(self, x):
            x = self.block(x)
            for layer in self.layers:
                x = layer(x)
            return self.head(x) * self.scale

    return Net


def test_module_traversal_and_repr():
    def snippet(lib):
        net = _net_class(lib)()
        return (repr(net), [n for n, _ in net.named_parameters()],
                [n for n, _ in net.named_modules()], [n for n, _ in net.named_children()],
                [n for n, _ in net.named_buffers()], list(net.state_dict().keys()),
                [type(m).__name__ for m in net.modules()],
                [type(m).__name__ for m in net.children()],
                [tuple(p.shape) for p in net.parameters()],
                [n for n, _ in net.named_parameters(prefix="model", recurse=False)],
                len(list(net.parameters())), net.training)

    check(snippet)


def test_module_state_dict_round_trip_between_libraries():
    torch_net = _net_class(torch)()
    engine_net = _net_class(engine)()
    saved = OrderedDict((k, engine.tensor(v.numpy())) for k, v in torch_net.state_dict().items())
    result = engine_net.load_state_dict(saved)
    assert repr(result) == "<All keys matched successfully>"
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_allclose(engine_net(engine.tensor(x)).detach().numpy(),
                               torch_net(torch.tensor(x)).detach().numpy(), rtol=1e-5)
    sd = engine_net.state_dict()
    assert type(sd) is OrderedDict and sd._metadata[""] == {"version": 1}
    assert all(not v.requires_grad and v.grad_fn is None for v in sd.values())
    # state_dict tensors share memory with the parameters
    assert np.shares_memory(sd["block.fc.weight"].numpy(), engine_net.block.fc.weight._data)
    kept = engine_net.state_dict(keep_vars=True)
    assert kept["block.fc.weight"] is engine_net.block.fc.weight


@pytest.mark.parametrize("change", ["missing", "unexpected", "both", "shape", "not_tensor"])
def test_load_state_dict_errors(change):
    def snippet(lib):
        m = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Linear(4, 1))
        sd = m.state_dict()
        if change in ("missing", "both"):
            del sd["1.bias"]
        if change in ("unexpected", "both"):
            sd["2.weight"] = lib.ones(1)
            sd["0.extra"] = lib.ones(1)
        if change == "shape":
            sd["0.weight"] = lib.ones(4, 4)
        if change == "not_tensor":
            sd["0.bias"] = [1.0, 2.0, 3.0, 4.0]
        try:
            m.load_state_dict(sd)
        except RuntimeError as e:
            message = str(e)
        result = m.load_state_dict(sd, strict=False) if change != "shape" else None
        return message, None if result is None else (result.missing_keys,
                                                      result.unexpected_keys)

    check(snippet)


def test_load_state_dict_copies_in_place():
    def snippet(lib):
        m = _linear(lib)
        w = m.weight
        m.load_state_dict({"weight": lib.zeros(4, 3), "bias": lib.ones(4)})
        return m.weight is w, m.weight, m.bias, repr(m.load_state_dict(m.state_dict()))

    check(snippet)


def test_attribute_registration_rules():
    def snippet(lib):
        m = lib.nn.Module()
        m.w = lib.nn.Parameter(lib.ones(2))
        m.sub = lib.nn.Linear(1, 1)
        m.plain = lib.ones(2)  # a plain tensor is just an attribute
        m.w = None  # a parameter slot may be cleared
        m.register_parameter("v", lib.nn.Parameter(lib.zeros(1)))
        del m.v
        return ([n for n, _ in m.named_parameters()], [n for n, _ in m.named_children()],
                "plain" in m.state_dict(), m.w, hasattr(m, "v"))

    check(snippet)


@pytest.mark.parametrize("snippet", [
    lambda lib: setattr(_linear(lib), "weight", lib.ones(4, 3)),
    lambda lib: _linear(lib).register_parameter("a.b", lib.nn.Parameter(lib.ones(1))),
    lambda lib: _linear(lib).register_parameter("", lib.nn.Parameter(lib.ones(1))),
    lambda lib: _linear(lib).register_parameter("extra", lib.ones(1)),
    lambda lib: _linear(lib).register_parameter("in_features", lib.nn.Parameter(lib.ones(1))),
    lambda lib: _linear(lib).register_buffer("weight", lib.ones(1)),
    lambda lib: _linear(lib).register_buffer("buf", [1.0]),
    lambda lib: _linear(lib).add_module("weight", lib.nn.ReLU()),
    lambda lib: _linear(lib).add_module("x", 3),
    lambda lib: _linear(lib).add_module("a.b", lib.nn.ReLU()),
    lambda lib: _linear(lib).nonexistent,
    lambda lib: setattr(lib.nn.Sequential(lib.nn.ReLU()), "0", 5),
    lambda lib: _linear(lib).train("yes"),
    lambda lib: lib.nn.Module()(lib.ones(1)),
    lambda lib: _linear(lib).load_state_dict([1, 2]),
    lambda lib: _linear(lib).register_parameter(
        "derived", lib.nn.Parameter(lib.ones(1)) * 2),
])
def test_module_errors(snippet):
    same_error(snippet)


def test_train_eval_apply_requires_grad():
    def snippet(lib):
        net = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Sequential(lib.nn.ReLU()))
        modes = [net.eval() is net, [m.training for m in net.modules()]]
        net.train()
        modes.append([m.training for m in net.modules()])
        seen = []
        net.apply(lambda m: seen.append(type(m).__name__))
        net.requires_grad_(False)
        return modes, seen, [p.requires_grad for p in net.parameters()]

    check(snippet)


def test_double_and_float():
    def snippet(lib):
        m = _linear(lib)
        m.double()
        y = m(lib.tensor(X53.astype(np.float64)))
        m.float()
        return y, m.weight.dtype, m.to(lib.float64).bias.dtype

    check(snippet)


def test_forward_hooks():
    for lib in (torch, engine):
        m = _linear(lib)
        calls = []
        handle = m.register_forward_hook(
            lambda mod, args, out, calls=calls: calls.append(tuple(out.shape)))
        pre = m.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
        out = m(lib.ones(2, 3))
        handle.remove()
        pre.remove()
        m(lib.ones(2, 3))
        assert calls == [(2, 4)]
        np.testing.assert_allclose(out.detach().numpy(), np.broadcast_to(B4, (2, 4)))


# -- Linear ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(3,), (5, 3), (2, 5, 3)])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("input_grad", [True, False])
def test_linear_values_grads_and_chain(shape, bias, input_grad):
    x_values = RNG.standard_normal(shape).astype(np.float32)

    def snippet(lib):
        m = _linear(lib, bias)
        x = lib.tensor(x_values, requires_grad=input_grad)
        y = m(x)
        (y * y).sum().backward()
        return y, x, m.weight, m.bias, repr(m)

    check(snippet)


def test_functional_linear_errors():
    same_error(lambda lib: lib.nn.functional.linear(lib.ones(2, 3), lib.ones(4, 5), lib.ones(4)))
    same_error(lambda lib: lib.nn.functional.linear(lib.ones(2, 3), lib.ones(4, 5)))
    same_error(lambda lib: lib.nn.functional.linear(lib.tensor(1.0), lib.ones(4, 5)))


def test_linear_default_init_uses_the_engine_generator():
    engine.manual_seed(3)
    a = engine.nn.Linear(16, 8)
    engine.manual_seed(3)
    b = engine.nn.Linear(16, 8)
    assert np.array_equal(a.weight._data, b.weight._data)
    assert np.array_equal(a.bias._data, b.bias._data)
    # kaiming_uniform(a=sqrt(5)) and the bias rule both give U(-1/sqrt(fan_in), 1/sqrt(fan_in))
    bound = 1 / np.sqrt(16)
    big = engine.nn.Linear(16, 4000)
    for p in (big.weight, big.bias):
        values = p.detach().numpy()
        assert values.dtype == np.float32
        assert np.abs(values).max() <= bound
        assert np.abs(values).max() > 0.95 * bound
        assert abs(values.mean()) < 0.05 * bound
    assert big.weight.is_leaf and big.weight.requires_grad and big.weight.grad_fn is None


# -- activations and shape modules -----------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda nn: nn.ReLU(), lambda nn: nn.Tanh(), lambda nn: nn.Sigmoid(),
    lambda nn: nn.Softmax(dim=1), lambda nn: nn.Softmax(dim=0), lambda nn: nn.LogSoftmax(dim=1),
    lambda nn: nn.LogSoftmax(-1), lambda nn: nn.Identity(), lambda nn: nn.Identity(54, x=1),
    lambda nn: nn.Flatten(), lambda nn: nn.Flatten(0, 1), lambda nn: nn.Softmax(),
    lambda nn: nn.LogSoftmax(),
])
def test_activation_modules(make):
    x_values = RNG.standard_normal((4, 3)).astype(np.float32)

    def snippet(lib):
        m = make(lib.nn)
        x = lib.tensor(x_values, requires_grad=True)
        y = m(x)
        (y * lib.tensor(x_values)).sum().backward()
        return y, x, repr(m), y is x

    check(snippet)


def test_relu_inplace_and_flatten_3d():
    def snippet(lib):
        x = lib.tensor(X53, requires_grad=True)
        h = x * 1
        y = lib.nn.ReLU(inplace=True)(h)
        z = lib.nn.Flatten()(lib.tensor(np.ones((2, 3, 4), np.float32), requires_grad=True))
        z.sum().backward()
        return y, h, y is h, z, repr(lib.nn.ReLU(inplace=True))

    check(snippet)


def test_implicit_softmax_dim_warns():
    for lib in (torch, engine):
        with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
            lib.nn.functional.softmax(lib.ones(2, 3))


@pytest.mark.parametrize("name", ["relu", "tanh", "sigmoid"])
def test_functional_activations(name):
    def snippet(lib):
        x = lib.tensor(X53, requires_grad=True)
        y = getattr(lib.nn.functional, name)(x)
        y.sum().backward()
        return y, x

    check(snippet)


# -- losses ----------------------------------------------------------------------------------------

REDUCTIONS = ["mean", "sum", "none"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("target_grad", [False, True])
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
def test_regression_losses(name, reduction, target_grad):
    def snippet(lib):
        x = lib.tensor(X53, requires_grad=True)
        t = lib.tensor(T53, requires_grad=target_grad)
        loss = getattr(lib.nn.functional, name)(x, t, reduction=reduction)
        (loss * 1.5).sum().backward()
        return loss, x, t

    check(snippet)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
def test_weighted_regression_losses(name, reduction):
    weight = RNG.uniform(0.1, 2, (5, 3)).astype(np.float32)

    def snippet(lib):
        x = lib.tensor(X53, requires_grad=True)
        loss = getattr(lib.nn.functional, name)(x, lib.tensor(T53), reduction=reduction,
                                                weight=lib.tensor(weight))
        loss.sum().backward()
        return loss, x

    check(snippet)


@pytest.mark.parametrize("target_shape", [(3,), (5, 1), (1, 3)])
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
def test_regression_losses_broadcast_with_warning(name, target_shape):
    def snippet(lib):
        x = lib.tensor(X53, requires_grad=True)
        t = lib.tensor(np.ones(target_shape, np.float32), requires_grad=True)
        loss = getattr(lib.nn.functional, name)(x, t)
        loss.backward()
        return loss, x, t

    check(snippet)
    for lib in (torch, engine):
        with pytest.warns(UserWarning, match="Using a target size"):
            getattr(lib.nn.functional, name)(lib.tensor(X53), lib.ones(*target_shape))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore_index", [-100, 2])
def test_cross_entropy_and_nll_with_class_indices(reduction, weighted, ignore_index):
    weight = np.array([0.2, 1.0, 3.0], np.float32)

    def snippet(lib):
        x = lib.tensor(X53, requires_grad=True)
        t = lib.tensor(CLASSES5)
        w = lib.tensor(weight) if weighted else None
        ce = lib.nn.functional.cross_entropy(x, t, weight=w, reduction=reduction,
                                             ignore_index=ignore_index)
        module = lib.nn.CrossEntropyLoss(weight=w, reduction=reduction,
                                         ignore_index=ignore_index)(x, t)
        log_p = lib.log_softmax(x, 1)
        nll = lib.nn.functional.nll_loss(log_p, t, weight=w, reduction=reduction,
                                         ignore_index=ignore_index)
        (ce.sum() + 2 * module.sum() + 3 * nll.sum()).backward()
        return ce, module, nll, x

    check(snippet)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore_index", [-100, 2])
def test_cross_entropy_label_smoothing(reduction, weighted, ignore_index):
    def snippet(lib):
        x = lib.tensor(X53, requires_grad=True)
        w = lib.tensor(np.array([0.2, 1.0, 3.0], np.float32)) if weighted else None
        loss = lib.nn.CrossEntropyLoss(weight=w, reduction=reduction, ignore_index=ignore_index,
                                       label_smoothing=0.15)(x, lib.tensor(CLASSES5))
        loss.sum().backward()
        return loss, x

    check(snippet)


@pytest.mark.parametrize("target_grad", [False, True])
def test_cross_entropy_label_smoothing_with_probabilities(target_grad):
    probs = RNG.dirichlet(np.ones(3), 5).astype(np.float32)

    def snippet(lib):
        x = lib.tensor(X53, requires_grad=True)
        t = lib.tensor(probs, requires_grad=target_grad)
        loss = lib.nn.functional.cross_entropy(x, t, label_smoothing=0.3)
        loss.backward()
        return loss, x, t

    check(snippet)


def test_cross_entropy_single_sample_and_spatial():
    image_values = RNG.standard_normal((2, 3, 2, 2)).astype(np.float32)
    seq_values = RNG.standard_normal((2, 3, 4)).astype(np.float32)

    def snippet(lib):
        x = lib.tensor(X53, requires_grad=True)
        single = lib.nn.functional.cross_entropy(x[1], lib.tensor(2))
        images = lib.tensor(image_values, requires_grad=True)
        labels = lib.tensor(np.array([[[0, 1], [2, 2]], [[1, 1], [0, 2]]]))
        spatial = lib.nn.functional.cross_entropy(images, labels)
        seq = lib.tensor(seq_values, requires_grad=True)
        seq_labels = lib.tensor(np.array([[0, 1, 2, 0], [2, 2, 1, 0]]))
        per_step = lib.nn.functional.cross_entropy(seq, seq_labels, reduction="none")
        (single + spatial + per_step.sum()).backward()
        return single, spatial, per_step, x, images, seq

    check(snippet)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_with_class_probabilities(reduction, weighted):
    probs = RNG.dirichlet(np.ones(3), 5).astype(np.float32)

    def snippet(lib):
        x = lib.tensor(X53, requires_grad=True)
        w = lib.tensor(np.array([0.5, 1.0, 2.0], np.float32)) if weighted else None
        loss = lib.nn.CrossEntropyLoss(weight=w, reduction=reduction)(x, lib.tensor(probs))
        loss.sum().backward()
        return loss, x

    check(snippet)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("target_grad", [False, True])
def test_binary_cross_entropy(reduction, weighted, target_grad):
    weight = np.array([0.5, 1.0, 2.0], np.float32)

    def snippet(lib):
        p = lib.tensor(P53, requires_grad=True)
        t = lib.tensor(T53, requires_grad=target_grad)
        w = lib.tensor(weight) if weighted else None
        loss = lib.nn.BCELoss(weight=w, reduction=reduction)(p, t)
        (loss * 2).sum().backward()
        f = lib.nn.functional.binary_cross_entropy(p.detach(), t.detach(), reduction=reduction)
        return loss, p, t, f, repr(lib.nn.BCELoss())

    check(snippet)


def test_binary_cross_entropy_clamps_log_at_minus_100():
    def snippet(lib):
        p = lib.tensor([0.0, 1.0, 0.5], requires_grad=True)
        loss = lib.nn.functional.binary_cross_entropy(p, lib.tensor([1.0, 0.0, 1.0]),
                                                      reduction="none")
        return loss

    check(snippet)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("pos_weighted", [False, True])
@pytest.mark.parametrize("target_grad", [False, True])
def test_bce_with_logits(reduction, weighted, pos_weighted, target_grad):
    def snippet(lib):
        x = lib.tensor(X53 * 4, requires_grad=True)  # large logits: the stable formula matters
        t = lib.tensor(T53, requires_grad=target_grad)
        w = lib.tensor(np.array([0.5, 1.0, 2.0], np.float32)) if weighted else None
        pw = lib.tensor(np.array([3.0, 0.5, 1.0], np.float32)) if pos_weighted else None
        module = lib.nn.BCEWithLogitsLoss(weight=w, pos_weight=pw, reduction=reduction)
        loss = module(x, t)
        (loss * 2).sum().backward()
        return loss, x, t, list(module.state_dict().keys())

    check(snippet)


def test_loss_module_reprs_and_buffers():
    def snippet(lib):
        nn = lib.nn
        mods = [nn.MSELoss(), nn.L1Loss(reduction="sum"), nn.CrossEntropyLoss(),
                nn.NLLLoss(weight=lib.ones(3)), nn.BCELoss(), nn.BCEWithLogitsLoss()]
        return ([repr(m) for m in mods], [list(m.state_dict()) for m in mods],
                [m.reduction for m in mods], mods[2].ignore_index)

    check(snippet)


def test_legacy_reduction_flags():
    def snippet(lib):
        x = lib.tensor(X53, requires_grad=True)
        return (lib.nn.MSELoss(size_average=False)(x, lib.tensor(T53)),
                lib.nn.MSELoss(reduce=False)(x, lib.tensor(T53)),
                lib.nn.functional.l1_loss(x, lib.tensor(T53), size_average=True))

    check(snippet)


LOSS_ERRORS = {
    "ce int32 target": lambda lib, F: F.cross_entropy(lib.tensor(X53), lib.tensor(CLASSES5).int()),
    "ce out of bounds": lambda lib, F: F.cross_entropy(lib.tensor(X53),
                                                       lib.tensor([0, 1, 2, 3, 0])),
    "ce negative": lambda lib, F: F.cross_entropy(lib.tensor(X53), lib.tensor([0, 1, 2, -1, 0])),
    "ce batch": lambda lib, F: F.cross_entropy(lib.tensor(X53), lib.tensor(CLASSES5[:4])),
    "ce float target": lambda lib, F: F.cross_entropy(lib.tensor(X53), lib.rand(5)),
    "ce 2-d target": lambda lib, F: F.cross_entropy(lib.tensor(X53), lib.rand(5, 4)),
    "ce int probabilities": lambda lib, F: F.cross_entropy(lib.tensor(1.0), lib.tensor(0)),
    "ce weight size": lambda lib, F: F.cross_entropy(lib.tensor(X53), lib.tensor(CLASSES5),
                                                     weight=lib.ones(4)),
    "ce smoothing range": lambda lib, F: F.cross_entropy(lib.tensor(X53), lib.tensor(CLASSES5),
                                                         label_smoothing=1.5),
    "ce reduction": lambda lib, F: F.cross_entropy(lib.tensor(X53), lib.tensor(CLASSES5),
                                                   reduction="avg"),
    "ce spatial target": lambda lib, F: F.cross_entropy(lib.ones(2, 3, 4),
                                                        lib.zeros(2, 5, dtype=lib.long)),
    "ce 4-d target dims": lambda lib, F: F.cross_entropy(lib.ones(2, 3, 4, 4),
                                                         lib.zeros(2, 5, dtype=lib.long)),
    "ce 4-d target size": lambda lib, F: F.cross_entropy(lib.ones(2, 3, 4, 4),
                                                         lib.zeros(2, 4, 5, dtype=lib.long)),
    "ce 1-d batch size": lambda lib, F: F.nll_loss(lib.tensor(X53), lib.tensor(CLASSES5[:1])),
    "nll float target": lambda lib, F: F.nll_loss(lib.tensor(X53), lib.tensor(T53[:, 0])),
    "nll 0-d input": lambda lib, F: F.nll_loss(lib.tensor(1.0), lib.tensor(0)),
    "nll weight grad": lambda lib, F: F.nll_loss(lib.tensor(X53, requires_grad=True),
                                                 lib.tensor(CLASSES5),
                                                 weight=lib.ones(3, requires_grad=True)),
    "mse shapes": lambda lib, F: F.mse_loss(lib.tensor(X53), lib.ones(5, 4)),
    "mse reduction": lambda lib, F: F.mse_loss(lib.tensor(X53), lib.tensor(T53),
                                               reduction="avg"),
    "mse weight shape": lambda lib, F: F.mse_loss(lib.tensor(X53), lib.tensor(T53),
                                                  weight=lib.ones(3)),
    "l1 weighted reduction": lambda lib, F: F.l1_loss(lib.tensor(X53), lib.tensor(T53),
                                                      weight=lib.ones(5, 3), reduction="avg"),
    "l1 reduction": lambda lib, F: F.l1_loss(lib.tensor(X53), lib.tensor(T53), reduction="x"),
    "nll 0-d target for a batch": lambda lib, F: F.nll_loss(lib.tensor(X53), lib.tensor(1)),
    "l1 shapes": lambda lib, F: F.l1_loss(lib.tensor(X53), lib.ones(5, 4)),
    "bce shapes": lambda lib, F: F.binary_cross_entropy(lib.tensor(P53), lib.rand(5)),
    "bce range": lambda lib, F: F.binary_cross_entropy(lib.tensor(P53) * 2, lib.tensor(T53)),
    "bce long target": lambda lib, F: F.binary_cross_entropy(
        lib.tensor(P53), lib.ones(5, 3, dtype=lib.long)),
    "bce double target": lambda lib, F: F.binary_cross_entropy(
        lib.tensor(P53), lib.ones(5, 3, dtype=lib.float64)),
    "bce weight shape": lambda lib, F: F.binary_cross_entropy(lib.tensor(P53), lib.tensor(T53),
                                                              weight=lib.ones(4)),
    "bce weight rows": lambda lib, F: F.binary_cross_entropy(lib.tensor(P53), lib.tensor(T53),
                                                             weight=lib.ones(2, 1)),
    "bce weight rank": lambda lib, F: F.binary_cross_entropy(lib.tensor(P53), lib.tensor(T53),
                                                             weight=lib.ones(2, 5, 3)),
    "bce logits weight shape": lambda lib, F: F.binary_cross_entropy_with_logits(
        lib.tensor(X53), lib.tensor(T53), weight=lib.ones(2, 1)),
    "bce logits shapes": lambda lib, F: F.binary_cross_entropy_with_logits(lib.tensor(X53),
                                                                           lib.rand(5)),
    "bce logits long": lambda lib, F: F.binary_cross_entropy_with_logits(
        lib.tensor(X53), lib.ones(5, 3, dtype=lib.long)),
}


@pytest.mark.parametrize("case", LOSS_ERRORS, ids=list(LOSS_ERRORS))
def test_loss_errors(case):
    same_error(lambda lib: LOSS_ERRORS[case](lib, lib.nn.functional))


# -- containers ------------------------------------------------------------------------------------

def test_sequential_indexing_and_editing():
    def snippet(lib):
        nn = lib.nn
        seq = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))
        out = [len(seq), type(seq[-1]).__name__, type(seq[1:]).__name__, repr(seq[1:]),
               [type(m).__name__ for m in seq]]
        seq.append(nn.Sigmoid())
        seq[1] = nn.ReLU()
        del seq[0]
        out += [repr(seq), list(seq.state_dict().keys())]
        named = nn.Sequential(OrderedDict([("hidden", nn.Linear(2, 2)), ("act", nn.ReLU())]))
        out += [repr(named), list(named.state_dict().keys()), repr(nn.Sequential())]
        return out

    check(snippet)


def test_sequential_forward_chain():
    upstream = RNG.standard_normal((5, 4)).astype(np.float32)

    def snippet(lib):
        nn = lib.nn
        seq = nn.Sequential(_linear(lib), nn.Tanh(), nn.Softmax(dim=1))
        x = lib.tensor(X53, requires_grad=True)
        y = seq(x)
        (y * lib.tensor(upstream)).sum().backward()
        return y, x, seq[0].weight, seq[0].bias

    check(snippet, rtol=1e-4)


def test_sequential_and_modulelist_errors():
    same_error(lambda lib: lib.nn.Sequential(lib.nn.ReLU())[3])
    same_error(lambda lib: lib.nn.ModuleList([lib.nn.ReLU()])[-2])
    same_error(lambda lib: lib.nn.ModuleList(5))
    same_error(lambda lib: lib.nn.Sequential(lib.nn.ReLU(), 5))


def test_module_list():
    def snippet(lib):
        nn = lib.nn
        layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
        layers.append(nn.ReLU())
        layers.extend([nn.Tanh(), nn.Tanh()])
        layers.insert(1, nn.Sigmoid())
        layers += [nn.Identity()]
        sliced = layers[2:4]
        del layers[0]
        return (repr(layers), len(layers), type(sliced).__name__, len(sliced),
                list(layers.state_dict().keys()), [type(m).__name__ for m in layers],
                repr(nn.ModuleList()))

    check(snippet)


def test_module_list_repr_groups_identical_children():
    def snippet(lib):
        nn = lib.nn
        return repr(nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2), nn.Linear(2, 3),
                                   nn.Sequential(nn.ReLU(), nn.ReLU())]))

    check(snippet)


# -- a training loop -------------------------------------------------------------------------------

def test_class_net_training_loop_matches_torch():
    """A 2-16-16-1 tanh MLP written as a class, MSE, SGD, 20 iterations: the same losses."""
    rng = np.random.default_rng(11)
    x_values = rng.uniform(-1, 1, (64, 2)).astype(np.float32)
    y_values = (np.sin(3 * x_values[:, :1]) * x_values[:, 1:]).astype(np.float32)
    weights = None

    def run(lib):
        nonlocal weights
        nn = lib.nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Linear(2, 16)
                self.fc2 = nn.Linear(16, 16)
                self.out = nn.Linear(16, 1)

            def forward(self, x):
                return self.out(lib.tanh(self.fc2(lib.tanh(self.fc1(x)))))

        net = Net()
        if weights is None:
            weights = {k: v.detach().numpy().copy() for k, v in net.state_dict().items()}
        else:
            net.load_state_dict({k: lib.tensor(v) for k, v in weights.items()})
        opt = lib.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
        loss_fn = nn.MSELoss()
        x, y = lib.tensor(x_values), lib.tensor(y_values)
        losses = []
        for _ in range(20):
            opt.zero_grad()
            loss = loss_fn(net(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return np.array(losses), net.fc1.weight.detach().numpy().copy(), repr(net), loss

    t_losses, t_w, t_repr, t_loss = run(torch)
    e_losses, e_w, e_repr, e_loss = run(engine)
    np.testing.assert_allclose(e_losses, t_losses, rtol=1e-5)
    np.testing.assert_allclose(e_w, t_w, rtol=1e-5, atol=1e-6)
    assert e_repr == t_repr
    assert e_losses[-1] < e_losses[0]  # it learns
    assert e_loss.grad_fn.name() == t_loss.grad_fn.name() == "MseLossBackward0"


# -- init and utils --------------------------------------------------------------------------------

@pytest.mark.parametrize("name,args", [
    ("zeros_", ()), ("ones_", ()), ("constant_", (0.25,)),
])
def test_deterministic_init(name, args):
    def snippet(lib):
        w = lib.nn.Parameter(lib.tensor(W34))
        out = getattr(lib.nn.init, name)(w, *args)
        return out is w, w

    check(snippet)


@pytest.mark.parametrize("name,kwargs,std_of_fan", [
    ("uniform_", {"a": -0.5, "b": 0.5}, lambda fi, fo: 1 / np.sqrt(12)),
    ("normal_", {"mean": 0.0, "std": 0.2}, lambda fi, fo: 0.2),
    ("xavier_uniform_", {}, lambda fi, fo: np.sqrt(2 / (fi + fo))),
    ("xavier_normal_", {"gain": 2.0}, lambda fi, fo: 2 * np.sqrt(2 / (fi + fo))),
    ("kaiming_uniform_", {"nonlinearity": "relu"}, lambda fi, fo: np.sqrt(2 / fi)),
    ("kaiming_normal_", {"mode": "fan_out"}, lambda fi, fo: np.sqrt(2 / (1 + 0.01**2) / fo)),
])
def test_random_init_statistics_and_seeding(name, kwargs, std_of_fan):
    shape = (300, 200)
    fn = getattr(engine.nn.init, name)
    engine.manual_seed(5)
    w = engine.nn.Parameter(engine.zeros(*shape))
    assert fn(w, **kwargs) is w
    assert w.grad_fn is None and w.is_leaf and w._version.value == 1
    values = w.detach().numpy()
    np.testing.assert_allclose(values.std(), std_of_fan(200, 300), rtol=0.03)
    engine.manual_seed(5)
    again = fn(engine.zeros(*shape), **kwargs)
    assert np.array_equal(values, again.detach().numpy())


def test_init_gains_and_errors():
    for args in [("linear",), ("tanh",), ("relu",), ("leaky_relu",), ("leaky_relu", 0.2),
                 ("selu",), ("sigmoid",)]:
        assert engine.nn.init.calculate_gain(*args) == torch.nn.init.calculate_gain(*args)
    same_error(lambda lib: lib.nn.init.xavier_uniform_(lib.ones(3)))
    same_error(lambda lib: lib.nn.init.calculate_gain("swish"))
    same_error(lambda lib: lib.nn.init.kaiming_uniform_(lib.ones(2, 2), mode="fan"))


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm(norm_type, max_norm):
    def snippet(lib):
        m = _linear(lib)
        m(lib.tensor(X53)).pow(2).sum().backward()
        total = lib.nn.utils.clip_grad_norm_(m.parameters(), max_norm, norm_type=norm_type)
        return total, m.weight.grad, m.bias.grad

    check(snippet)


def test_clip_grad_value():
    def snippet(lib):
        m = _linear(lib)
        m(lib.tensor(X53)).pow(2).sum().backward()
        lib.nn.utils.clip_grad_value_(m.parameters(), 1.0)
        return m.weight.grad, m.bias.grad

    check(snippet)


def test_import_spellings():
    import engine.nn as nn_module
    import engine.nn.functional as functional
    from engine import nn, optim

    assert nn is nn_module is engine.nn and optim is engine.optim
    assert functional is nn.functional and nn.init.zeros_ is engine.nn.init.zeros_


def test_module_zero_grad_reports_each_reset_gradient():
    from engine.events import hub

    m = _linear(engine)
    m(engine.tensor(X53)).sum().backward()
    events = []
    unsubscribe = hub.subscribe(events.append)
    try:
        m.zero_grad(set_to_none=False)
        m.zero_grad()
        m.zero_grad()  # nothing left to reset: no events
    finally:
        unsubscribe()
    assert [(e.kind, e.payload["tensor"], e.payload["set_to_none"]) for e in events] == [
        ("grad_zeroed", m.weight, False), ("grad_zeroed", m.bias, False),
        ("grad_zeroed", m.weight, True), ("grad_zeroed", m.bias, True),
    ]


def test_deepcopy_of_a_module_is_independent():
    def snippet(lib):
        m = _linear(lib)
        twin = copy.deepcopy(m)
        with lib.no_grad():
            twin.weight.mul_(2)
        return m.weight, twin.weight, type(twin.weight).__name__, twin.weight is m.weight

    check(snippet)
