"""The ops added for learners (log1p, expm1, prod, var, std, cumsum, leaky_relu, gelu, softplus,
elu, silu and their nn modules) against real PyTorch: values, dtypes (integer inputs too),
gradients, grad_fn graphs, errors' type and first line, second derivatives. Their rows'
finite-difference checks live in test_gradcheck.py with the other rows."""

from __future__ import annotations

import numpy as np
import pytest

from tests.engine.differential import check

A = np.array([[0.7, -1.3, 2.1, 0.2], [-0.4, 1.6, -2.5, 0.9], [1.1, -0.05, 0.3, -1.7]],
             dtype=np.float32)
ZEROS = np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 2.0], [1.5, -2.0, 0.5]], dtype=np.float32)
WIDE = np.array([-30.0, -8.0, -1.0, -0.0, 0.0, 1e-3, 1.0, 8.0, 25.0, 90.0], dtype=np.float32)


def grads_of(f, data=A, dtype="float32", grad_out=True):
    """``f(torch, x)`` on a leaf x, then backward of a weighted sum: the result and x's grad."""

    def snippet(t):
        x = t.tensor(data, dtype=getattr(t, dtype), requires_grad=True)
        y = f(t, x)
        if grad_out:
            w = t.tensor(np.linspace(-1.0, 2.0, y.numel()).reshape(tuple(y.shape)),
                         dtype=y.dtype)
            (y * w).sum().backward()
        return {"y": y, "x": x}

    return snippet


OPS = {
    "log1p_method": lambda t, x: x.abs().log1p(),
    "log1p_function": lambda t, x: t.log1p(x * 0.5),
    "expm1_method": lambda t, x: x.expm1(),
    "expm1_function": lambda t, x: t.expm1(x),
    "prod_all": lambda t, x: x.prod(),
    "prod_function": lambda t, x: t.prod(x),
    "prod_dim": lambda t, x: x.prod(1),
    "prod_dim_neg_keepdim": lambda t, x: t.prod(x, -2, keepdim=True),
    "prod_kw": lambda t, x: x.prod(dim=0, keepdim=False),
    "prod_dtype": lambda t, x: x.prod(dtype=t.float64),
    "prod_dim_dtype": lambda t, x: x.prod(1, dtype=t.float64),
    "var_all": lambda t, x: x.var(),
    "var_function": lambda t, x: t.var(x),
    "var_dim": lambda t, x: x.var(1),
    "var_dim_keepdim": lambda t, x: x.var(0, keepdim=True),
    "var_dims": lambda t, x: t.var(x, (0, 1)),
    "var_dims_list_keepdim": lambda t, x: x.var([1, 0], keepdim=True),
    "var_unbiased_positional": lambda t, x: x.var(1, False),
    "var_three_positional": lambda t, x: t.var(x, 1, True, True),
    "var_unbiased_only": lambda t, x: x.var(False),
    "var_unbiased_kw": lambda t, x: x.var(unbiased=False),
    "var_correction": lambda t, x: x.var(1, correction=0),
    "var_correction_float": lambda t, x: x.var(0, correction=0.5),
    "var_none_keepdim": lambda t, x: x.var(dim=None, keepdim=True),
    "var_empty_dims": lambda t, x: x.var(()),
    "var_empty_dims_keepdim": lambda t, x: x.var([], keepdim=True, correction=0),
    "std_empty_dims": lambda t, x: x.std((), correction=0.5),
    "std_all": lambda t, x: x.std(),
    "std_function": lambda t, x: t.std(x, dim=1),
    "std_dim_keepdim": lambda t, x: x.std(0, keepdim=True),
    "std_correction": lambda t, x: t.std(x, dim=None, correction=2),
    "std_unbiased": lambda t, x: x.std(unbiased=False),
    "std_dims": lambda t, x: x.std((-1, 0), True),
    "cumsum_method": lambda t, x: x.cumsum(1),
    "cumsum_function": lambda t, x: t.cumsum(x, dim=0),
    "cumsum_neg": lambda t, x: t.cumsum(x, -1),
    "cumsum_dtype": lambda t, x: x.cumsum(0, dtype=t.float64),
    "leaky_relu": lambda t, x: t.nn.functional.leaky_relu(x),
    "leaky_relu_slope": lambda t, x: t.nn.functional.leaky_relu(x, 0.2),
    "leaky_relu_kw": lambda t, x: t.nn.functional.leaky_relu(x, negative_slope=-1.5),
    "leaky_relu_inplace": lambda t, x: t.nn.functional.leaky_relu(x * 1, 0.3, inplace=True),
    "gelu": lambda t, x: t.nn.functional.gelu(x),
    "gelu_tanh": lambda t, x: t.nn.functional.gelu(x, approximate="tanh"),
    "softplus": lambda t, x: t.nn.functional.softplus(x),
    "softplus_beta": lambda t, x: t.nn.functional.softplus(x, beta=2, threshold=1.5),
    "softplus_kw": lambda t, x: t.nn.functional.softplus(x, 0.5, 3.0),
    "elu": lambda t, x: t.nn.functional.elu(x),
    "elu_alpha": lambda t, x: t.nn.functional.elu(x, alpha=0.5),
    "elu_inplace": lambda t, x: t.nn.functional.elu(x * 2, 1.5, inplace=True),
    "silu": lambda t, x: t.nn.functional.silu(x),
    "silu_inplace": lambda t, x: t.nn.functional.silu(x * 1, inplace=True),
    "modules": lambda t, x: t.nn.Sequential(
        t.nn.LeakyReLU(0.1), t.nn.GELU(), t.nn.Softplus(), t.nn.ELU(), t.nn.SiLU(),
        t.nn.GELU("tanh"), t.nn.Softplus(beta=3, threshold=2))(x),
    "modules_inplace": lambda t, x: t.nn.LeakyReLU(inplace=True)(x * 1)
    + t.nn.ELU(0.7, inplace=True)(x * 2) + t.nn.SiLU(inplace=True)(x * 3),
    "chain": lambda t, x: (x.cumsum(0).expm1().std(1) + x.abs().log1p().prod(0).var()),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_values_graph_and_gradients(name):
    check(grads_of(OPS[name]), rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(OPS))
def test_float64(name):
    check(grads_of(OPS[name], dtype="float64"), rtol=1e-7, atol=1e-9)


ELEMENTWISE = ["log1p_method", "expm1_method", "leaky_relu", "gelu", "gelu_tanh", "softplus",
               "softplus_beta", "elu", "silu", "leaky_relu_inplace", "elu_inplace",
               "silu_inplace"]


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_wide_range_of_inputs(name):
    """Very negative and very positive inputs, signed zeros: no nan/inf where PyTorch has none."""
    check(grads_of(OPS[name], data=WIDE), rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("snippet", [
    lambda t, x: x.prod(),
    lambda t, x: x.prod(0),
    lambda t, x: x.prod(1, keepdim=True),
    lambda t, x: x[:2].prod(),  # two zeros
    lambda t, x: x[:1].prod(),  # one zero
    lambda t, x: x[2].prod(),  # no zero
])
def test_prod_with_zeros(snippet):
    check(grads_of(snippet, data=ZEROS))


@pytest.mark.parametrize("data, snippet", [
    ([1.0], lambda t, x: x.var()),  # no degrees of freedom: nan, grad nan
    ([2.0, 2.0], lambda t, x: x.std()),  # std 0: grad 0
    ([2.0, 3.0], lambda t, x: x.var(correction=2)),
    ([2.0, 3.0, 4.0], lambda t, x: x.var(correction=5)),  # nan where x is the mean
    ([[1.0], [2.0]], lambda t, x: x.var(1)),
    ([[1.0, 1.0], [2.0, 3.0]], lambda t, x: x.std(1)),
    ([[1.0, 1.0], [2.0, 3.0]], lambda t, x: x.std(1, correction=3)),
    (2.5, lambda t, x: x.var()),
    (2.5, lambda t, x: x.std(0)),
    (2.5, lambda t, x: x.prod()),
    (2.5, lambda t, x: x.prod(0)),
    (2.5, lambda t, x: x.prod(-1, keepdim=True)),
    (2.5, lambda t, x: x.cumsum(0)),
    (2.5, lambda t, x: x.cumsum(-1)),
    ([[3.0, 4.0]], lambda t, x: x.cumsum(0)),
])
def test_edge_cases(data, snippet):
    check(grads_of(snippet, data=np.asarray(data, dtype=np.float32)))


INT_INPUTS = {
    "log1p": lambda t, x: t.log1p(x),
    "expm1": lambda t, x: x.expm1(),
    "prod": lambda t, x: x.prod(),
    "prod_dim": lambda t, x: t.prod(x, 0),
    "prod_dtype": lambda t, x: x.prod(dtype=t.float32),
    "cumsum": lambda t, x: x.cumsum(0),
    "cumsum_function": lambda t, x: t.cumsum(x, dim=-1),
    "var": lambda t, x: x.var(),
    "std": lambda t, x: t.std(x, 0),
    "leaky_relu": lambda t, x: t.nn.functional.leaky_relu(x),
    "gelu": lambda t, x: t.nn.functional.gelu(x),
    "softplus": lambda t, x: t.nn.functional.softplus(x),
    "elu": lambda t, x: t.nn.functional.elu(x),
    "silu": lambda t, x: t.nn.functional.silu(x),
}


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
@pytest.mark.parametrize("name", sorted(INT_INPUTS))
def test_integer_and_bool_inputs(name, dtype):
    values = [[3, 0, -2], [1, 5, 2]] if dtype != "bool" else [[True, False, True], [True] * 3]
    check(lambda t: INT_INPUTS[name](t, t.tensor(values, dtype=getattr(t, dtype))))


ERRORS = {
    "prod_dim": lambda t, x: x.prod(2),
    "prod_neg_dim": lambda t, x: t.prod(x, -3),
    "var_dim": lambda t, x: x.var(5),
    "std_neg_dim": lambda t, x: x.std(-3),
    "var_dims": lambda t, x: t.var(x, (0, 2)),
    "var_repeated_dims": lambda t, x: x.var((0, 0)),
    "std_repeated_dims": lambda t, x: x.std((1, -1)),
    "cumsum_dim": lambda t, x: x.cumsum(2),
    "cumsum_neg_dim": lambda t, x: t.cumsum(x, -3),
    "cumsum_no_dim": lambda t, x: x.cumsum(),
    "cumsum_0d_dim": lambda t, x: x[0, 0].cumsum(1),
    "int_var_dim": lambda t, x: x.long().var(5),
    "int_std_dims": lambda t, x: x.int().std((0, 0)),
    "cumsum_none_dim": lambda t, x: x.cumsum(None),
    "cumsum_float_dim": lambda t, x: t.cumsum(x, 0.5),
    "prod_tuple_dim": lambda t, x: x.prod((0,)),
    "prod_float_dim": lambda t, x: t.prod(x, 0.0),
    "var_float_dim": lambda t, x: t.var(x, 1.0),
    "std_str_dim": lambda t, x: x.std("a"),
    "gelu_approximate": lambda t, x: t.nn.functional.gelu(x, approximate="exact"),
    "gelu_approximate_none": lambda t, x: t.nn.functional.gelu(x, approximate=None),
    "leaky_relu_leaf_inplace": lambda t, x: t.nn.functional.leaky_relu(x, inplace=True),
    "elu_leaf_inplace": lambda t, x: t.nn.functional.elu(x, inplace=True),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    check(lambda t: ERRORS[name](t, t.tensor(A, requires_grad=True)))


def test_module_reprs():
    check(lambda t: [repr(m) for m in (
        t.nn.LeakyReLU(), t.nn.LeakyReLU(0.2, True), t.nn.GELU(), t.nn.GELU("tanh"),
        t.nn.Softplus(), t.nn.Softplus(2, 10), t.nn.ELU(), t.nn.ELU(alpha=0.5, inplace=True),
        t.nn.SiLU(), t.nn.SiLU(inplace=True),
        t.nn.Sequential(t.nn.Linear(2, 2), t.nn.GELU(), t.nn.LeakyReLU()))])


def test_var_warns_without_degrees_of_freedom():
    import engine

    with pytest.warns(UserWarning, match=r"var\(\): degrees of freedom is <= 0"):
        engine.tensor([1.0]).var()
    with pytest.warns(UserWarning, match=r"std\(\): degrees of freedom is <= 0"):
        engine.tensor([[1.0, 2.0]]).std(0)


X = np.array([0.7, -1.3, 2.1, 0.4], dtype=np.float64)
W = np.array([[0.5, -1.0, 0.25, 1.2], [1.5, 0.3, -0.8, -0.6]], dtype=np.float64)
V = np.array([1.0, -2.0, 0.5, 0.3], dtype=np.float64)

SECOND_ORDER = {
    "log1p": lambda t, x, w: (x * x).log1p().sum() * w.abs().log1p().sum(),
    "expm1": lambda t, x, w: (x.expm1() * w).sum(),
    "prod": lambda t, x, w: x.prod() + (w * x).prod(1).sum(),
    "prod_zero": lambda t, x, w: (x * t.tensor([1.0, 0.0, 1.0, 1.0], dtype=t.float64)).prod()
    + (w * t.tensor([0.0, 1.0, 0.0, 1.0], dtype=t.float64)).prod(0).sum(),
    "var": lambda t, x, w: x.var() * w.var(1).sum() + w.var(0, keepdim=True).sum(),
    "std": lambda t, x, w: x.std() * w.std(1).sum() + w.std((0, 1), correction=0),
    "cumsum": lambda t, x, w: (x.cumsum(0) ** 2).sum() + (w.cumsum(1) * w).sum(),
    "leaky_relu": lambda t, x, w: (t.nn.functional.leaky_relu(w * x, 0.2) ** 2).sum(),
    "leaky_relu_inplace": lambda t, x, w: (
        t.nn.functional.leaky_relu(w * x, 0.2, inplace=True) ** 2).sum(),
    "gelu": lambda t, x, w: (t.nn.functional.gelu(w * x) ** 2).sum(),
    "gelu_tanh": lambda t, x, w: (t.nn.functional.gelu(w * x, approximate="tanh") ** 2).sum(),
    "softplus": lambda t, x, w: (t.nn.functional.softplus(w * x, beta=2, threshold=1.0)
                                 ** 2).sum(),
    "elu": lambda t, x, w: (t.nn.functional.elu(w * x, 0.5) ** 2).sum(),
    "elu_inplace": lambda t, x, w: (t.nn.functional.elu(w * x, 0.5, inplace=True) ** 2).sum(),
    "silu": lambda t, x, w: (t.nn.functional.silu(w * x) ** 2).sum(),
}


def _second_order(f):
    def snippet(t):
        x = t.tensor(X, requires_grad=True)
        w = t.tensor(W, requires_grad=True)
        y = f(t, x, w)
        gx, gw = t.autograd.grad(y, [x, w], create_graph=True)
        total = (gx * t.tensor(V)).sum() + (gw * gw).sum()
        hx, hw = t.autograd.grad(total, [x, w])
        # the second-order graphs may use other nodes than PyTorch's: values and flags only
        return {k: (v.detach().numpy().copy(), str(v.dtype), v.requires_grad)
                for k, v in {"gx": gx, "gw": gw, "hx": hx, "hw": hw}.items()}

    return snippet


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_second_derivatives(name):
    check(_second_order(SECOND_ORDER[name]), rtol=1e-6, atol=1e-8)


def test_gelu_third_derivative():
    """erf is made of traceable calls: gelu differentiates to any order."""

    def snippet(t):
        x = t.tensor(np.array([0.7, -1.3, 2.1, 0.0, -4.0, 6.5]), requires_grad=True)
        (g1,) = t.autograd.grad(t.nn.functional.gelu(x).sum(), [x], create_graph=True)
        (g2,) = t.autograd.grad(g1.sum(), [x], create_graph=True)
        (g3,) = t.autograd.grad(g2.sum(), [x])
        return [g.detach().numpy().tolist() for g in (g1, g2, g3)]

    check(snippet, rtol=1e-7, atol=1e-9)


def test_scripts_can_call_the_new_ops():
    from engine import script

    ns = script.run(
        "import torch\n"
        "import torch.nn as nn\n"
        "import torch.nn.functional as F\n"
        "x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], requires_grad=True)\n"
        "y = torch.log1p(x.abs()) + x.expm1() + torch.cumsum(x, 1) + x.cumsum(0)\n"
        "z = torch.prod(y, 1).sum() + torch.var(x) + torch.std(x, 0).sum() + x.prod()\n"
        "a = nn.Sequential(nn.LeakyReLU(0.1), nn.GELU(), nn.Softplus(), nn.ELU(), nn.SiLU())(x)\n"
        "b = F.leaky_relu(x) + F.gelu(x, approximate='tanh') + F.softplus(x) + F.elu(x) "
        "+ F.silu(x)\n"
        "loss = z + a.sum() + b.sum() + x.var(1).sum() + x.std()\n"
        "loss.backward()\n"
    )
    assert ns["x"].grad is not None
    assert ns["loss"].grad_fn.name() == "AddBackward0"
