"""Lazy modules against torch.nn: what an uninitialised module and parameter print, the
parameters made on the first call with torch's init (bit for bit after manual_seed), the class
the module becomes, and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from tests.engine.differential import check
from tests.engine.nn.test_nn import same_error

torch = pytest.importorskip("torch")

X = np.random.default_rng(2).standard_normal((2, 3, 7, 6)).astype(np.float32)


@pytest.mark.parametrize("build", [
    lambda nn: nn.LazyLinear(4), lambda nn: nn.LazyLinear(4, bias=False),
    lambda nn: nn.LazyConv2d(4, 3, padding=1), lambda nn: nn.LazyConv1d(5, 2, bias=False),
    lambda nn: nn.LazyConv2d(4, 3, groups=3, stride=2),
], ids=range(5))
def test_before_the_first_call(build):
    def describe(torch):
        m = build(torch.nn)
        return (repr(m), str(type(m)), repr(m.weight), str(type(m.weight)),
                list(m.state_dict()), m.has_uninitialized_params())

    assert describe(engine) == describe(torch)


@pytest.mark.parametrize("build,x", [
    (lambda nn: nn.LazyLinear(4), X[0, 0]), (lambda nn: nn.LazyLinear(4, bias=False), X),
    (lambda nn: nn.LazyConv2d(4, 3, padding=1), X), (lambda nn: nn.LazyConv1d(5, 2), X[0]),
    (lambda nn: nn.LazyConv2d(6, 3, groups=3), X[0]),
], ids=range(5))
def test_first_call_initialises_as_torch(build, x):
    def snippet(torch):
        torch.manual_seed(4)
        m = build(torch.nn)
        xt = torch.tensor(x, requires_grad=True)
        out = m(xt)
        out.sum().backward()
        after = torch.rand(2)  # the stream moved on by the same draws
        return {"out": out, "x": xt, "params": dict(m.named_parameters()), "repr": repr(m),
                "type": str(type(m)), "weight_type": str(type(m.weight)), "after": after}

    check(snippet)
    torch.manual_seed(4)
    engine.manual_seed(4)
    t, e = build(torch.nn), build(engine.nn)
    t(torch.tensor(x))
    e(engine.tensor(x))
    for name, p in t.state_dict().items():
        assert np.array_equal(p.numpy(), e.state_dict()[name].numpy()), name


def test_shape_of_an_uninitialised_parameter_and_bad_input_rank():
    same_error(lambda lib: lib.nn.LazyLinear(3).weight.shape[0])
    same_error(lambda lib: lib.nn.LazyConv2d(4, 3)(lib.zeros(2, 3)))


# -- LazyBatchNorm1d / LazyBatchNorm2d: uninitialised weights and running statistics ------------

_LAZY_NORMS = [
    (lambda nn: nn.LazyBatchNorm2d(), X), (lambda nn: nn.LazyBatchNorm2d(momentum=0.3), X[:1]),
    (lambda nn: nn.LazyBatchNorm1d(affine=False), X[:, :, 0]),
    (lambda nn: nn.LazyBatchNorm1d(track_running_stats=False), X[:, :, 0]),
    (lambda nn: nn.LazyBatchNorm1d(bias=False), X[0]),
]


@pytest.mark.parametrize("build,x", _LAZY_NORMS, ids=range(len(_LAZY_NORMS)))
def test_lazy_batch_norm_before_and_after_the_first_call(build, x):
    def snippet(torch):
        m = build(torch.nn)
        before = (repr(m), str(type(m)), [(n, str(type(b)), repr(b) if b is not None else None)
                                          for n, b in m.named_buffers()],
                  repr(m.weight), m.has_uninitialized_params(), list(m.state_dict()))
        xt = torch.tensor(x, requires_grad=True)
        out = m(xt)
        out.sum().backward()
        return {"before": before, "out": out, "x": xt, "params": dict(m.named_parameters()),
                "buffers": dict(m.named_buffers()), "repr": repr(m), "type": str(type(m)),
                "uninitialized": m.has_uninitialized_params(), "eval": m.eval()(xt[:1] * 2)}

    check(snippet)


def test_lazy_batch_norm_errors():
    same_error(lambda lib: lib.nn.LazyBatchNorm2d()(lib.zeros(2, 3)))
    same_error(lambda lib: lib.nn.LazyBatchNorm1d()(lib.zeros(2, 3, 4, 5)))
    same_error(lambda lib: lib.nn.LazyBatchNorm1d().running_mean.shape)
