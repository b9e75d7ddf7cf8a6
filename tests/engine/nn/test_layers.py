"""Layers against torch.nn: convolution, pooling, padding (and the modules around them).

Differential: each snippet runs in torch and in the engine with the same data and the same weights
(loaded into both), and ``check`` compares values, dtypes, grads, the whole grad_fn graph, flags
and versions. ``CASES`` is also a differential table of ``tests/engine/ops/test_op_rows.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.engine.differential import check
from tests.engine.nn.test_nn import same_error

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(14)


def data(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def _backward(torch, out):
    g = torch.tensor(np.cos(np.arange(out.numel())).reshape(tuple(out.shape)), dtype=out.dtype)
    out.backward(g)


def case(build, *arrays, requires=None):
    """Leaves from ``arrays`` (all require grad unless ``requires`` says), then
    ``build(torch, *leaves)``, backward with a gradient that differs per element; returns the
    output and the leaves."""

    def snippet(torch):
        leaves = [torch.tensor(a, requires_grad=True if requires is None else requires[i])
                  for i, a in enumerate(arrays)]
        out = build(torch, *leaves)
        first = out[0] if isinstance(out, tuple) else out
        if first.requires_grad:
            _backward(torch, first)
        return {"out": out, "leaves": tuple(leaves)}

    return snippet


def module_case(make, x, state, train=True):
    """``make(nn)`` with ``state`` loaded, run on ``x`` (requiring grad), backward; returns the
    output, the input and the module's tensors and its repr."""

    def snippet(torch):
        m = make(torch.nn)
        m.load_state_dict({k: torch.tensor(v) for k, v in state.items()}, strict=False)
        m.train(train)
        xt = torch.tensor(x, requires_grad=True)
        out = m(xt)
        first = out[0] if isinstance(out, tuple) else out
        _backward(torch, first)
        return {"out": out, "x": xt, "params": dict(m.named_parameters()),
                "buffers": dict(m.named_buffers()), "repr": repr(m)}

    return snippet


X = data(2, 3, 9, 8)
X1 = data(2, 3, 11)
W = data(4, 3, 3, 3)
W_EVEN = data(4, 3, 4, 2)
W_GROUPS = data(6, 1, 3, 3)
W1 = data(4, 3, 3)
B = data(4)
B6 = data(6)
TIES = np.round(data(2, 3, 6, 6)).astype(np.float32)  # many equal maxima in a window
POOL = data(2, 3, 8, 8)

CONV = {
    "conv2d": case(lambda t, x, w, b: t.nn.functional.conv2d(x, w, b), X, W, B),
    "conv2d_no_bias": case(lambda t, x, w: t.nn.functional.conv2d(x, w), X, W),
    "conv2d_input_only": case(lambda t, x, w, b: t.nn.functional.conv2d(x, w, b), X, W, B,
                              requires=[True, False, False]),
    "conv2d_weight_only": case(lambda t, x, w, b: t.nn.functional.conv2d(x, w, b), X, W, B,
                               requires=[False, True, True]),
    "conv2d_stride_padding": case(
        lambda t, x, w, b: t.nn.functional.conv2d(x, w, b, stride=2, padding=1), X, W, B),
    "conv2d_asymmetric": case(
        lambda t, x, w, b: t.nn.functional.conv2d(x, w, b, stride=(2, 1), padding=(0, 2),
                                                  dilation=(1, 2)), X, W, B),
    "conv2d_dilation": case(
        lambda t, x, w, b: t.nn.functional.conv2d(x, w, b, dilation=2, padding=2), X, W, B),
    "conv2d_stride_leftover": case(
        lambda t, x, w, b: t.nn.functional.conv2d(x, w, b, stride=3), X, W, B),
    "conv2d_same": case(lambda t, x, w, b: t.nn.functional.conv2d(x, w, b, padding="same"),
                        X, W, B),
    "conv2d_same_even_kernel": case(
        lambda t, x, w, b: t.nn.functional.conv2d(x, w, b, padding="same"), X, W_EVEN, B),
    "conv2d_same_dilated": case(
        lambda t, x, w, b: t.nn.functional.conv2d(x, w, b, padding="same", dilation=2),
        X, W_EVEN, B),
    "conv2d_valid": case(lambda t, x, w, b: t.nn.functional.conv2d(x, w, b, padding="valid"),
                         X, W, B),
    "conv2d_groups": case(lambda t, x, w, b: t.nn.functional.conv2d(x, w, b, groups=3, padding=1),
                          X, W_GROUPS, B6),
    "conv2d_unbatched": case(lambda t, x, w, b: t.nn.functional.conv2d(x, w, b, padding=1),
                             X[0], W, B),
    "conv2d_float64": case(lambda t, x, w, b: t.nn.functional.conv2d(x, w, b, stride=2),
                           X.astype(np.float64), W.astype(np.float64), B.astype(np.float64)),
    "conv2d_chain": case(lambda t, x, w, b: t.nn.functional.conv2d(x * 2, w, b).relu().sum(),
                         X, W, B),
    "conv1d": case(lambda t, x, w, b: t.nn.functional.conv1d(x, w, b), X1, W1, B),
    "conv1d_stride_padding_dilation": case(
        lambda t, x, w, b: t.nn.functional.conv1d(x, w, b, stride=2, padding=2, dilation=2),
        X1, W1, B),
    "conv1d_same": case(lambda t, x, w: t.nn.functional.conv1d(x, w, padding="same"), X1, W1),
    "conv1d_unbatched": case(lambda t, x, w, b: t.nn.functional.conv1d(x, w, b), X1[0], W1, B),
    "pad": case(lambda t, x: t.nn.functional.pad(x, (1, 2, 0, 3)), X),
    "pad_value_and_crop": case(lambda t, x: t.nn.functional.pad(x, (1, -2), value=1.5), X),
}

POOLS = {
    "max_pool2d": case(lambda t, x: t.nn.functional.max_pool2d(x, 2), POOL),
    "max_pool2d_stride_padding": case(
        lambda t, x: t.nn.functional.max_pool2d(x, 3, stride=2, padding=1), POOL),
    "max_pool2d_overlap_ties": case(lambda t, x: t.nn.functional.max_pool2d(x, 3, stride=1),
                                    TIES),
    "max_pool2d_dilation": case(
        lambda t, x: t.nn.functional.max_pool2d(x, (2, 3), stride=(1, 2), dilation=2), POOL),
    "max_pool2d_ceil_mode": case(
        lambda t, x: t.nn.functional.max_pool2d(x, 3, stride=2, ceil_mode=True), POOL),
    "max_pool2d_ceil_mode_padding": case(
        lambda t, x: t.nn.functional.max_pool2d(x, 2, stride=2, padding=1, ceil_mode=True),
        X),
    "max_pool2d_unbatched": case(lambda t, x: t.nn.functional.max_pool2d(x, 2), POOL[0]),
    "max_pool2d_indices": case(
        lambda t, x: t.nn.functional.max_pool2d(x, 3, stride=2, padding=1, return_indices=True),
        X),
    "max_pool2d_float64": case(lambda t, x: t.nn.functional.max_pool2d(x, 2),
                               POOL.astype(np.float64)),
    "avg_pool2d": case(lambda t, x: t.nn.functional.avg_pool2d(x, 2), POOL),
    "avg_pool2d_stride_padding": case(
        lambda t, x: t.nn.functional.avg_pool2d(x, 3, stride=2, padding=1), X),
    "avg_pool2d_exclude_pad": case(
        lambda t, x: t.nn.functional.avg_pool2d(x, 3, stride=2, padding=1,
                                                count_include_pad=False), X),
    "avg_pool2d_ceil_mode": case(
        lambda t, x: t.nn.functional.avg_pool2d(x, 2, stride=2, padding=1, ceil_mode=True), X),
    "avg_pool2d_ceil_exclude": case(
        lambda t, x: t.nn.functional.avg_pool2d(x, 3, stride=2, ceil_mode=True,
                                                count_include_pad=False), X),
    "avg_pool2d_divisor": case(
        lambda t, x: t.nn.functional.avg_pool2d(x, 2, divisor_override=3), POOL),
    "avg_pool2d_unbatched": case(lambda t, x: t.nn.functional.avg_pool2d(x, (2, 4)), POOL[0]),
    "adaptive_avg_pool2d_1": case(lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, 1), X),
    "adaptive_avg_pool2d_uneven": case(
        lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, (4, 3)), X),
    "adaptive_avg_pool2d_overlap": case(
        lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, 7), POOL),
    "adaptive_avg_pool2d_none": case(
        lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, (None, 3)), X),
    "adaptive_avg_pool2d_unbatched": case(
        lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, (2, 2)), X[0]),
}

MODULES = {
    "Conv2d": module_case(lambda nn: nn.Conv2d(3, 4, 3), X, {"weight": W, "bias": B}),
    "Conv2d_options": module_case(
        lambda nn: nn.Conv2d(3, 4, 3, stride=2, padding=1, dilation=(1, 2), bias=False), X,
        {"weight": W}),
    "Conv2d_same_groups": module_case(
        lambda nn: nn.Conv2d(3, 6, 3, padding="same", groups=3), X,
        {"weight": W_GROUPS, "bias": B6}),
    "Conv1d": module_case(lambda nn: nn.Conv1d(3, 4, 3, padding=1), X1, {"weight": W1, "bias": B}),
    "MaxPool2d": module_case(lambda nn: nn.MaxPool2d(2), X, {}),
    "MaxPool2d_options": module_case(lambda nn: nn.MaxPool2d((3, 2), (2, 1), 1, ceil_mode=True),
                                     X, {}),
    "AvgPool2d": module_case(lambda nn: nn.AvgPool2d(3, stride=2, padding=1), X, {}),
    "AdaptiveAvgPool2d": module_case(lambda nn: nn.AdaptiveAvgPool2d((5, None)), X, {}),
    "AdaptiveAvgPool2d_1": module_case(lambda nn: nn.AdaptiveAvgPool2d(1), X, {}),
}

XN = data(5, 3, 4, 4)
XN1 = data(6, 3)
XL = data(2, 4, 5)
C3 = data(3)
C3B = data(3)
L45 = data(4, 5)
L45B = data(4, 5)
IDX = np.array([[1, 2, 4], [4, 3, 1]], dtype=np.int64)
EMB = data(6, 3)


def _bn_run(make, x, steps=2, train=True, state=None):
    """A BatchNorm module run ``steps`` times (running statistics updated each time), then once
    more with the final mode; the output, its grads and all the buffers."""

    def snippet(torch):
        m = make(torch.nn)
        if state:
            m.load_state_dict({k: torch.tensor(v) for k, v in state.items()}, strict=False)
        xt = torch.tensor(x, requires_grad=True)
        for k in range(steps):
            m(xt * (k + 1.5))
        m.train(train)
        out = m(xt)
        _backward(torch, out)
        return {"out": out, "x": xt, "params": dict(m.named_parameters()),
                "buffers": dict(m.named_buffers()), "repr": repr(m)}

    return snippet


NORMS = {
    "batch_norm_train": case(
        lambda t, x, w, b: t.nn.functional.batch_norm(x, t.zeros(3), t.ones(3), w, b, True),
        XN, C3, C3B),
    "batch_norm_eval": case(
        lambda t, x, w, b: t.nn.functional.batch_norm(
            x, t.tensor(C3B), t.tensor(np.abs(C3) + 0.5), w, b, False), XN, C3, C3B),
    "batch_norm_no_affine": case(
        lambda t, x: t.nn.functional.batch_norm(x, None, None, training=True), XN1),
    "batch_norm_buffers": case(
        lambda t, x: (lambda rm, rv: (t.nn.functional.batch_norm(x, rm, rv, training=True,
                                                                 momentum=0.3), rm, rv))(
            t.zeros(3), t.ones(3)), XN),
    "BatchNorm2d": _bn_run(lambda nn: nn.BatchNorm2d(3), XN,
                           state={"weight": C3, "bias": C3B}),
    "BatchNorm2d_eval": _bn_run(lambda nn: nn.BatchNorm2d(3), XN, train=False,
                                state={"weight": C3, "bias": C3B}),
    "BatchNorm2d_cumulative": _bn_run(lambda nn: nn.BatchNorm2d(3, momentum=None, affine=False),
                                      XN, steps=3),
    "BatchNorm2d_untracked_eval": _bn_run(
        lambda nn: nn.BatchNorm2d(3, track_running_stats=False, eps=1e-3), XN, train=False),
    "BatchNorm1d": _bn_run(lambda nn: nn.BatchNorm1d(3), XN1, state={"weight": C3, "bias": C3B}),
    "BatchNorm1d_3d": _bn_run(lambda nn: nn.BatchNorm1d(4, bias=False), XL, steps=1),
    "layer_norm": case(lambda t, x, w, b: t.nn.functional.layer_norm(x, (4, 5), w, b),
                       XL, L45, L45B),
    "layer_norm_last": case(lambda t, x: t.nn.functional.layer_norm(x, (5,), eps=1e-3), XL),
    "layer_norm_int_shape": case(lambda t, x: t.nn.functional.layer_norm(x, 5), XL),
    "LayerNorm": module_case(lambda nn: nn.LayerNorm(5), XL,
                             {"weight": L45[0], "bias": L45B[0]}),
    "LayerNorm_no_bias": module_case(lambda nn: nn.LayerNorm([4, 5], bias=False), XL,
                                     {"weight": L45}),
    "LayerNorm_no_affine": module_case(lambda nn: nn.LayerNorm(5, elementwise_affine=False),
                                       XL, {}),
    "embedding": case(lambda t, w: t.nn.functional.embedding(t.tensor(IDX), w), EMB),
    "embedding_padding": case(
        lambda t, w: t.nn.functional.embedding(t.tensor(IDX), w, padding_idx=-2), EMB),
    "embedding_1d_int32": case(
        lambda t, w: t.nn.functional.embedding(t.tensor(IDX[0].astype(np.int32)), w), EMB),
}


def _embedding_module(padding_idx):
    def snippet(torch):
        m = torch.nn.Embedding(6, 3, padding_idx=padding_idx)
        m.load_state_dict({"weight": torch.tensor(EMB)})
        out = m(torch.tensor(IDX))
        _backward(torch, out)
        return {"out": out, "weight": m.weight, "repr": repr(m)}

    return snippet


NORMS["Embedding"] = _embedding_module(None)
NORMS["Embedding_padding"] = _embedding_module(1)

# the fused smooth-L1 and Huber kernels (their rows in engine/ops/table.py), both reductions
LOSSES = {
    "smooth_l1_loss": case(lambda torch, a, b: torch.nn.functional.smooth_l1_loss(a, b, beta=0.5),
                           data(4, 3), data(4, 3)),
    "smooth_l1_loss_sum": case(lambda torch, a, b: torch.nn.functional.smooth_l1_loss(
        a, b, reduction="sum", beta=2.0), data(5), data(5)),
    "huber_loss": case(lambda torch, a, b: torch.nn.functional.huber_loss(a, b, delta=0.7),
                       data(4, 3), data(4, 3)),
    "HuberLoss_none": case(lambda torch, a, b: torch.nn.HuberLoss(reduction="none")(a, b),
                           data(6), data(6)),
    # the C++ compositions' own nodes: sub.Scalar (SubBackward1) and at::norm (NormBackward1)
    "cosine_embedding_loss": case(lambda torch, a, b: torch.nn.functional.cosine_embedding_loss(
        a, b, torch.tensor([1, -1, -1, 1]), margin=0.1), data(4, 3), data(4, 3)),
    "pairwise_distance": case(lambda torch, a, b: torch.nn.functional.pairwise_distance(
        a, b, p=3.0), data(4, 3), data(4, 3)),
}
CASES = {**CONV, **POOLS, **MODULES, **NORMS, **LOSSES}


@pytest.mark.parametrize("name", CASES)
def test_layers_against_torch(name):
    check(CASES[name], rtol=1e-4, atol=1e-5)


# -- the blitz CIFAR-10 net, whole ---------------------------------------------------------------

def _blitz_net(nn, F):
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 6, 5)
            self.pool = nn.MaxPool2d(2, 2)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = self.pool(F.relu(self.conv1(x)))
            x = self.pool(F.relu(self.conv2(x)))
            x = x.flatten(1)
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            return self.fc3(x)

    return Net()


def test_blitz_cifar_net_default_init_forward_backward():
    images = data(4, 3, 32, 32)
    labels = np.array([3, 8, 0, 6])

    def snippet(lib):
        lib.manual_seed(0)  # the default init draws as PyTorch's
        net = _blitz_net(lib.nn, lib.nn.functional)
        out = net(lib.tensor(images))
        loss = lib.nn.functional.cross_entropy(out, lib.tensor(labels))
        loss.backward()
        return {"loss": loss, "params": dict(net.named_parameters()), "repr": repr(net)}

    check(snippet, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("make", [
    lambda nn: nn.Conv2d(3, 6, 5), lambda nn: nn.Conv2d(4, 6, (3, 2), groups=2, bias=False),
    lambda nn: nn.Conv1d(2, 5, 4, padding="same"), lambda nn: nn.Conv1d(1, 1, 1, stride=3),
    lambda nn: nn.Embedding(7, 4), lambda nn: nn.Embedding(7, 4, padding_idx=2),
    lambda nn: nn.BatchNorm2d(3), lambda nn: nn.LayerNorm((2, 3)),
])
def test_default_init_draws_as_torch(make):
    def snippet(lib):
        lib.manual_seed(5)
        m = make(lib.nn)
        return dict(m.named_parameters()), dict(m.named_buffers()), repr(m)

    check(snippet)


@pytest.mark.parametrize("make", [
    lambda nn: nn.Conv2d(1, 6, 5), lambda nn: nn.Conv2d(3, 6, 3, 2, 1, groups=3),
    lambda nn: nn.Conv2d(1, 6, 5, padding="same", bias=False, dilation=2),
    lambda nn: nn.Conv2d(1, 6, 5, padding="valid"), lambda nn: nn.Conv1d(2, 3, 4),
    lambda nn: nn.Conv1d(2, 4, (3,), stride=(2,), padding=1),
    lambda nn: nn.MaxPool2d(2), lambda nn: nn.MaxPool2d((2, 2)), lambda nn: nn.MaxPool2d(3, 2, 1),
    lambda nn: nn.AvgPool2d(2), lambda nn: nn.AvgPool2d(3, 2, 1, ceil_mode=True),
    lambda nn: nn.AdaptiveAvgPool2d((1, 1)), lambda nn: nn.AdaptiveAvgPool2d(1),
    lambda nn: nn.AdaptiveAvgPool2d((None, 3)),
    lambda nn: nn.BatchNorm2d(3), lambda nn: nn.BatchNorm1d(4, affine=False, momentum=None),
    lambda nn: nn.BatchNorm1d(4, eps=1e-3, track_running_stats=False),
    lambda nn: nn.BatchNorm2d(2, bias=False), lambda nn: nn.LayerNorm(5),
    lambda nn: nn.LayerNorm((4, 5), elementwise_affine=False),
    lambda nn: nn.LayerNorm(5, bias=False),
    lambda nn: nn.Embedding(10, 3), lambda nn: nn.Embedding(10, 3, padding_idx=-1),
])
def test_layer_reprs_and_attributes(make):
    def snippet(lib):
        m = make(lib.nn)
        attrs = {k: getattr(m, k) for k in ("kernel_size", "stride", "padding", "dilation",
                                            "groups", "output_size", "ceil_mode")
                 if hasattr(m, k)}
        return repr(m), str(type(m)), attrs, [n for n, _ in m.named_parameters()]

    check(snippet)


# -- errors ----------------------------------------------------------------------------------------

ERRORS = {
    "conv_rank": lambda t: t.nn.functional.conv2d(t.ones(2, 3), t.ones(4, 3, 3, 3)),
    "conv1d_rank": lambda t: t.nn.functional.conv1d(t.ones(2, 3, 4, 4), t.ones(4, 3, 3)),
    "conv_channels": lambda t: t.nn.functional.conv2d(t.ones(2, 5, 8, 8), t.ones(4, 3, 3, 3)),
    "conv_groups_channels": lambda t: t.nn.functional.conv2d(t.ones(2, 4, 8, 8),
                                                             t.ones(4, 1, 3, 3), groups=3),
    "conv_kernel_too_big": lambda t: t.nn.functional.conv2d(t.ones(2, 3, 2, 2),
                                                            t.ones(4, 3, 3, 3)),
    "conv_dtype": lambda t: t.nn.functional.conv2d(t.ones(2, 3, 5, 5, dtype=t.float64),
                                                   t.ones(4, 3, 3, 3)),
    "conv_bias_dtype": lambda t: t.nn.functional.conv2d(
        t.ones(2, 3, 5, 5), t.ones(4, 3, 3, 3), t.ones(4, dtype=t.float64)),
    "conv_bias_size": lambda t: t.nn.functional.conv2d(t.ones(2, 3, 5, 5), t.ones(4, 3, 3, 3),
                                                       t.ones(3)),
    "conv_stride": lambda t: t.nn.functional.conv1d(t.ones(2, 3, 8), t.ones(4, 3, 3), stride=0),
    "conv_negative_padding": lambda t: t.nn.functional.conv2d(t.ones(2, 3, 5, 5),
                                                              t.ones(4, 3, 3, 3), padding=-1),
    "conv_padding_string": lambda t: t.nn.functional.conv2d(t.ones(2, 3, 5, 5),
                                                            t.ones(4, 3, 3, 3), padding="foo"),
    "conv_same_strided": lambda t: t.nn.functional.conv2d(t.ones(2, 3, 5, 5), t.ones(4, 3, 3, 3),
                                                          padding="same", stride=2),
    "Conv2d_groups_in": lambda t: t.nn.Conv2d(3, 4, 3, groups=2),
    "Conv2d_groups_out": lambda t: t.nn.Conv2d(4, 3, 3, groups=2),
    "Conv2d_groups_zero": lambda t: t.nn.Conv2d(4, 4, 3, groups=0),
    "Conv2d_same_strided": lambda t: t.nn.Conv2d(3, 4, 3, padding="same", stride=2),
    "Conv2d_padding_string": lambda t: t.nn.Conv2d(3, 4, 3, padding="full"),
    "max_pool_pad": lambda t: t.nn.functional.max_pool2d(t.ones(1, 1, 8, 8), 3, padding=2),
    "max_pool_rank": lambda t: t.nn.functional.max_pool2d(t.ones(2, 3), 2),
    "max_pool_too_small": lambda t: t.nn.functional.max_pool2d(t.ones(1, 1, 1, 1), 2),
    "avg_pool_pad": lambda t: t.nn.functional.avg_pool2d(t.ones(1, 1, 8, 8), 3, padding=2),
    "avg_pool_rank": lambda t: t.nn.functional.avg_pool2d(t.ones(2, 3, 4, 4, 4), 2),
    "adaptive_rank": lambda t: t.nn.functional.adaptive_avg_pool2d(t.ones(2, 3), 2),
    "adaptive_rank_tuple": lambda t: t.nn.functional.adaptive_avg_pool2d(t.ones(2, 3), (2, 2)),
    "BatchNorm2d_rank": lambda t: t.nn.BatchNorm2d(3)(t.ones(1, 3)),
    "BatchNorm1d_rank": lambda t: t.nn.BatchNorm1d(3)(t.ones(2, 3, 4, 4)),
    "BatchNorm1d_one_value": lambda t: t.nn.BatchNorm1d(3)(t.ones(1, 3)),
    "BatchNorm2d_one_value": lambda t: t.nn.BatchNorm2d(3)(t.ones(1, 3, 1, 1)),
    "layer_norm_shape": lambda t: t.nn.functional.layer_norm(t.ones(2, 3), (4,)),
    "embedding_float_indices": lambda t: t.nn.functional.embedding(t.ones(2), t.ones(4, 3)),
    "embedding_out_of_range": lambda t: t.nn.functional.embedding(t.tensor([4]), t.ones(4, 3)),
    "pad_odd": lambda t: t.nn.functional.pad(t.ones(2, 3), (1, 2, 3)),
    "pad_too_long": lambda t: t.nn.functional.pad(t.ones(2, 3), (1, 1, 1, 1, 1, 1)),
}


@pytest.mark.parametrize("name", ERRORS)
def test_layer_errors(name):
    same_error(ERRORS[name])
