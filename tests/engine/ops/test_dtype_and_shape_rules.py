"""Differential tests (engine vs real PyTorch, via ``tests.engine.differential.check``) for places
where the engine used to compute, word or type things differently from PyTorch: integer inputs
without a kernel, matrix products of different dtypes, mv/matmul/cat/stack errors, the losses' 1-D
and 0-d cases, keepdim without dim, the transpose of a 0-d tensor, torch.tensor() from lists, and
the name of the producing node in the "modified by an inplace operation" error.
"""

from __future__ import annotations

import pytest

from tests.engine.differential import check, version_of

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning")]


def _f(t):
    return t.nn.functional


def _ints(t, *shape, dtype="int64"):
    return t.zeros(*shape, dtype=getattr(t, dtype))


def _floats(t, *shape, dtype="float32", rg=True):
    if not shape:
        return t.tensor(0.1, dtype=getattr(t, dtype), requires_grad=rg)
    n = 1
    for s in shape:
        n *= s
    values = [0.1 + 0.17 * i for i in range(n)]
    return t.tensor(values, dtype=getattr(t, dtype)).reshape(*shape).requires_grad_(rg)


# -- 1. integer inputs: no kernel in PyTorch -------------------------------------------------------

INTEGER_CASES = {
    # linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long
    "norm": lambda t: t.norm(_ints(t, 3)),
    "norm_dim": lambda t: _ints(t, 2, 3, dtype="int32").norm(dim=0),
    "norm_0d": lambda t: t.norm(t.tensor(3)),
    # "softmax_lastdim_kernel_impl" / "softmax_kernel_impl" not implemented for 'Long'
    "softmax_last": lambda t: t.softmax(_ints(t, 3), 0),
    "softmax_inner": lambda t: t.softmax(_ints(t, 2, 3, dtype="int32"), 0),
    "softmax_0d": lambda t: t.softmax(t.tensor(3), -1),
    "softmax_bool": lambda t: _f(t).softmax(t.ones(3, dtype=t.bool), dim=0),
    "softmax_bad_dim_first": lambda t: t.softmax(_ints(t, 2, 3), 5),
    "softmax_empty": lambda t: t.softmax(_ints(t, 0, 3), 1),
    "softmax_dtype": lambda t: t.softmax(t.tensor([1, 2, 3]), 0, dtype=t.float32),
    "log_softmax_last": lambda t: _f(t).log_softmax(_ints(t, 3), dim=-1),
    "log_softmax_inner": lambda t: t.log_softmax(_ints(t, 2, 3), 0),
    # "mse_cpu" not implemented for 'Long' (the result type of input and target)
    "mse_long": lambda t: _f(t).mse_loss(_ints(t, 3), _ints(t, 3)),
    "mse_long_int": lambda t: _f(t).mse_loss(_ints(t, 3), _ints(t, 3, dtype="int32")),
    "mse_bool": lambda t: _f(t).mse_loss(t.ones(3, dtype=t.bool), t.ones(3, dtype=t.bool)),
    "mse_none": lambda t: _f(t).mse_loss(_ints(t, 3), _ints(t, 3), reduction="none"),
    "mse_int_float": lambda t: _f(t).mse_loss(_ints(t, 3), _floats(t, 3)),
    "mse_broadcast_first": lambda t: _f(t).mse_loss(_ints(t, 3), _ints(t, 2)),
    # cross_entropy: log_softmax first
    "ce_int_input": lambda t: _f(t).cross_entropy(_ints(t, 2, 3, dtype="int32"), _ints(t, 2)),
    "ce_int_probabilities": lambda t: _f(t).cross_entropy(_ints(t, 3), _floats(t, 3)),
    "ce_int_0d_target": lambda t: _f(t).cross_entropy(_ints(t, 3), _floats(t)),
    "ce_int_same_shape_int": lambda t: _f(t).cross_entropy(_ints(t, 3), _ints(t, 3)),
    # "nll_loss_out_frame" / "nll_loss2d_forward_out_frame" not implemented for 'Int'
    "nll_int": lambda t: _f(t).nll_loss(_ints(t, 2, 3, dtype="int32"), _ints(t, 2)),
    "nll_int_out_of_range": lambda t: _f(t).nll_loss(_ints(t, 2, 3), t.tensor([7, 7])),
    "nll_int_float_target": lambda t: _f(t).nll_loss(_ints(t, 2, 3), _floats(t, 2, rg=False)),
    "nll_int_3d": lambda t: _f(t).nll_loss(_ints(t, 2, 3, 4, dtype="int32"), _ints(t, 2, 4)),
    "nll_int_4d": lambda t: _f(t).nll_loss(_ints(t, 2, 3, 4, 4), _ints(t, 2, 4, 4)),
    # "binary_cross_entropy" not implemented for 'Long'
    "bce_long": lambda t: _f(t).binary_cross_entropy(_ints(t, 3), _ints(t, 3)),
    "bce_long_out_of_range": lambda t: _f(t).binary_cross_entropy(_ints(t, 3) + 5, _ints(t, 3)),
    "bce_dtype_mismatch": lambda t: _f(t).binary_cross_entropy(_ints(t, 3), _floats(t, 3)),
    # "log_sigmoid_cpu" not implemented for 'Long'; an integer target cannot hold the loss
    "bcel_long": lambda t: _f(t).binary_cross_entropy_with_logits(_ints(t, 3), _ints(t, 3)),
    "bcel_long_float": lambda t: _f(t).binary_cross_entropy_with_logits(_ints(t, 3), _floats(t, 3)),
    "bcel_long_bool": lambda t: _f(t).binary_cross_entropy_with_logits(
        _ints(t, 3), t.ones(3, dtype=t.bool)),
    "bcel_float_long": lambda t: _f(t).binary_cross_entropy_with_logits(_floats(t, 3), _ints(t, 3)),
    "bcel_float_bool": lambda t: _f(t).binary_cross_entropy_with_logits(
        _floats(t, 3), t.ones(3, dtype=t.bool)),
}


@pytest.mark.parametrize("name", list(INTEGER_CASES))
def test_integer_inputs_refused_as_torch(name):
    check(INTEGER_CASES[name])


# -- 2-4. matrix products --------------------------------------------------------------------------

SHAPES = {"s": (), "v": (3,), "w": (4,), "M": (2, 3), "N": (3, 2), "Q": (3, 3), "B": (2, 3, 4),
          "C": (3, 4, 5), "D": (2, 4, 5), "E": (1, 4, 2), "F": (4, 3, 2, 2)}


def _operand(t, name, dtype="float32", rg=True):
    if dtype.startswith("int"):
        return t.ones(SHAPES[name], dtype=getattr(t, dtype))
    return t.ones(SHAPES[name], dtype=getattr(t, dtype), requires_grad=rg)


MIXED = [("v", "v"), ("M", "v"), ("v", "N"), ("M", "N"), ("B", "D"), ("B", "v"), ("B", "N"),
         ("w", "B"), ("N", "B"), ("D", "w"), ("Q", "Q")]


@pytest.mark.parametrize("a,b", MIXED)
@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("float64", "float32"),
                                    ("float32", "int64"), ("int64", "float32"),
                                    ("int32", "float32"), ("int16", "int8"), ("int64", "int64")])
def test_matmul_of_different_dtypes_refused_as_torch(a, b, dtypes):
    # dot : expected both vectors to have same dtype, but found Float and Double
    # addmv input tensors must have the same dtype, but got Double, Float, and Double
    # expected m1 and m2 to have the same dtype, but got: float != double
    # expected scalar type Float but found Double (bmm)
    da, db = dtypes
    check(lambda t: _operand(t, a, da) @ _operand(t, b, db))


@pytest.mark.parametrize("fn", ["mm", "mv", "dot", "bmm"])
@pytest.mark.parametrize("a,b", MIXED + [("s", "v"), ("v", "s"), ("M", "M"), ("M", "s"),
                                         ("B", "B"), ("s", "s")])
@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("float32", "float64"),
                                    ("int64", "float32")])
def test_matrix_functions_checks_as_torch(fn, a, b, dtypes):
    # mv: "vector + matrix @ vector expected, got 1, 2, 2", "Dimension specified as 0 but tensor
    # has no dimensions" for a 0-d matrix
    da, db = dtypes
    check(lambda t: getattr(t, fn)(_operand(t, a, da), _operand(t, b, db)))


@pytest.mark.parametrize("a,b", [(a, b) for a in SHAPES for b in SHAPES
                                 if len(SHAPES[a]) >= 3 or len(SHAPES[b]) >= 3])
@pytest.mark.parametrize("rg", [True, False])
def test_batched_matmul_errors_as_torch(a, b, rg):
    # the batch folds into mm/mv rows or expands into bmm, each with its own message; batch
    # shapes that cannot broadcast: "The size of tensor a (2) must match the size of tensor b (3)
    # at non-singleton dimension 0"
    check(lambda t: _operand(t, a, rg=rg) @ _operand(t, b, rg=rg))


def test_matmul_same_dtype_still_records_torchs_nodes():
    check(lambda t: (_floats(t, 2, 3) @ _floats(t, 3, 4), _floats(t, 3) @ _floats(t, 3, 2),
                     _floats(t, 2, 3, 4) @ _floats(t, 4), _floats(t, 2, 3, 4) @ _floats(t, 2, 4, 2),
                     _floats(t, 2, 3, dtype="float64") @ _floats(t, 3, dtype="float64")))


# -- 5. cat and stack ------------------------------------------------------------------------------

@pytest.mark.parametrize("case", [
    lambda t: t.cat([t.ones(()), t.ones(())]),  # zero-dimensional tensor (at position 0) ...
    lambda t: t.cat([t.ones(3), t.ones(())]),
    lambda t: t.cat([t.ones(()), t.ones(3)], dim=4),
    lambda t: t.cat([t.ones(3), t.ones(2, 2)], dim=5),
    lambda t: t.stack([t.ones(()), t.ones(3)], dim=1),  # dim range before shapes
    lambda t: t.stack([t.ones(2), t.ones(3)], dim=-3),
    lambda t: t.stack([t.ones(2), t.ones(3)], dim=1),
    lambda t: t.stack([t.ones(2, requires_grad=True), t.ones(2)], dim=-1),
])
def test_cat_and_stack_errors_as_torch(case):
    check(case)


# -- 6-7. losses: 1-D input, 0-d input, mixed float dtypes -----------------------------------------

LOSS_CASES = {
    # For 1D input, 1D target must have size 1, but got target size: 3
    "nll_1d_long_target": lambda t: _f(t).nll_loss(_floats(t, 3), t.tensor([0, 1, 2])),
    "nll_1d_short_target": lambda t: _f(t).nll_loss(_floats(t, 4), t.tensor([0, 1])),
    "nll_1d_int_input": lambda t: _f(t).nll_loss(_ints(t, 3), _ints(t, 3)),
    "nll_1d_float_target": lambda t: _f(t).nll_loss(_floats(t, 3), _floats(t, 2, rg=False)),
    "nll_1d_2d_target": lambda t: _f(t).nll_loss(_floats(t, 3), _ints(t, 1, 1)),
    "nll_1d_target_of_one": lambda t: [_f(t).nll_loss(_floats(t, 3), t.tensor([1]), reduction=r)
                                       for r in ("none", "mean", "sum")],
    "nll_1d_target_of_one_backward": lambda t: _f(t).nll_loss(
        _floats(t, 3), t.tensor([1])).backward(),
    "nll_0d": lambda t: _f(t).nll_loss(_floats(t), t.tensor(0)),
    "ce_1d_long_target": lambda t: _f(t).cross_entropy(_floats(t, 3), t.tensor([0, 1])),
    "ce_1d_target_of_one": lambda t: _f(t).cross_entropy(_floats(t, 3), t.tensor([1])),
    "ce_1d_target_of_one_smoothing": lambda t: _f(t).cross_entropy(
        _floats(t, 3), t.tensor([1]), label_smoothing=0.1),
    # Dimension specified as 1 but tensor has no dimensions
    "ce_0d": lambda t: _f(t).cross_entropy(_floats(t), _floats(t, rg=False)),
    "ce_0d_sum": lambda t: _f(t).cross_entropy(_floats(t), _floats(t, rg=False), reduction="sum"),
    "ce_0d_smoothing": lambda t: _f(t).cross_entropy(_floats(t), _floats(t, rg=False),
                                                     label_smoothing=0.2),
    "ce_0d_class_target": lambda t: _f(t).cross_entropy(_floats(t), _ints(t, 2)),
    "ce_0d_int": lambda t: _f(t).cross_entropy(t.tensor(3), t.tensor(3)),
}


@pytest.mark.parametrize("name", list(LOSS_CASES))
def test_loss_shapes_as_torch(name):
    check(LOSS_CASES[name])


def _bcel(t, x_dtype, y_dtype, **kw):
    x = t.tensor([0.3, -1.2, 2.0], dtype=getattr(t, x_dtype), requires_grad=True)
    y = t.tensor([0.0, 1.0, 0.3], dtype=getattr(t, y_dtype), requires_grad=True)
    if "weight" in kw:
        kw["weight"] = t.tensor([1.0, 2.0, 3.0], dtype=getattr(t, kw["weight"]))
    if "pos_weight" in kw:
        kw["pos_weight"] = t.tensor([1.0, 2.0, 3.0], dtype=getattr(t, kw["pos_weight"]))
    loss = _f(t).binary_cross_entropy_with_logits(x, y, **kw)
    loss.sum().backward()
    # the gradients' values and dtypes (PyTorch's backward writes them in place: their version
    # counters say nothing about the engine)
    return loss, x.grad.tolist(), str(x.grad.dtype), y.grad.tolist(), str(y.grad.dtype)


@pytest.mark.parametrize("dtypes", [("float64", "float32"), ("float32", "float64"),
                                    ("float32", "float32"), ("float64", "float64")])
@pytest.mark.parametrize("kw", [{}, {"reduction": "none"}, {"reduction": "sum"},
                                {"weight": "float64"}, {"pos_weight": "float64"},
                                {"weight": "float32", "reduction": "none"}])
def test_bce_with_logits_takes_the_targets_dtype(dtypes, kw):
    check(lambda t: _bcel(t, *dtypes, **dict(kw)))


# -- 8. keepdim without dim ------------------------------------------------------------------------

REDUCTION_CASES = {
    # sum() received an invalid combination of arguments - got (keepdim=bool, ), but expected ...
    "sum_method": lambda t: t.ones(2, 3).sum(keepdim=True),
    "sum_method_false": lambda t: t.ones(2, 3).sum(keepdim=False),
    "sum_function": lambda t: t.sum(t.ones(2, 3), keepdim=True),
    "sum_dtype": lambda t: t.sum(t.ones(2, 3), keepdim=True, dtype=t.float64),
    "sum_method_dtype": lambda t: t.ones(2, 3).sum(keepdim=True, dtype=t.float64),
    "mean_method": lambda t: t.ones(2, 3).mean(keepdim=True),
    "mean_function": lambda t: t.mean(t.ones(2, 3), keepdim=True),
    "mean_function_dtype": lambda t: t.mean(t.ones(2, 3), keepdim=True, dtype=t.float64),
    "mean_method_dtype": lambda t: t.ones(2, 3).mean(keepdim=True, dtype=t.float64),
    "mean_int": lambda t: t.zeros(3, dtype=t.int64).mean(keepdim=True),
    # an explicit dim=None is the dim overload (SumBackward1/MeanBackward1), keepdim allowed
    "sum_none": lambda t: _floats(t, 2, 3).sum(dim=None),
    "sum_none_keepdim": lambda t: _floats(t, 2, 3).sum(None, True),
    "sum_none_keepdim_0d": lambda t: _floats(t).sum(None, True),
    "mean_none_keepdim": lambda t: _floats(t, 2, 3).mean(None, True),
    "mean_none_dtype": lambda t: t.mean(_floats(t, 2, 3), dim=None, keepdim=True, dtype=t.float64),
    "sum_plain": lambda t: (_floats(t, 2, 3).sum(), t.sum(_floats(t, 2)), _floats(t, 2).mean()),
    "sum_dims": lambda t: (_floats(t, 2, 3).sum(1, keepdim=True),
                           _floats(t, 2, 3).mean(dim=[0, 1])),
}


@pytest.mark.parametrize("name", list(REDUCTION_CASES))
def test_keepdim_without_dim_as_torch(name):
    check(REDUCTION_CASES[name])


def test_sum_over_none_keepdim_backward():
    def run(t):
        x = _floats(t, 2, 3)
        x.mean(None, True).sum().backward()
        y = _floats(t, 2, 3)
        (y.sum(None, True) * 2).sum().backward()
        return x.grad.tolist(), y.grad.tolist()

    check(run)


# -- 9. transpose of a 0-d tensor ------------------------------------------------------------------

def test_transpose_of_a_scalar():
    check(lambda t: (_floats(t).transpose(0, -1), t.transpose(_floats(t), -1, -1),
                     _floats(t).swapaxes(0, 0)))
    check(lambda t: t.ones(()).transpose(0, 1))

    def backward(t):
        s = _floats(t)
        y = s.transpose(0, -1)
        (y * 3).backward()
        return s.grad, y._base is s, version_of(y)

    check(backward)

    def view(t):
        s = t.tensor(2.0)
        y = s.transpose(0, -1)
        y.mul_(2)
        return s, y, version_of(s)

    check(view)


# -- 10. torch.tensor from lists -------------------------------------------------------------------

TEXTS = ["[[1, 2], 3]", "[1, [2]]", "[1.0, [2.0]]", "[True, [False]]", "[[[1., 2.]], [[3.]]]",
         "[1, (2,)]", "[9223372036854775808]", "[-9223372036854775809]", "[2**70]", "[2**1030]",
         "[[], [1]]", "[[], []]", "[(), [1]]", "[1, []]", "[[1.], []]", "[[1, 2], [3]]", "[1e400]",
         "[0.7]", "[1, 0.7]", "[[0.1, 0.2]]", "0.7", "300", "[300]", "[-1, 255]", "[-129]",
         "[256.0]", "[-0.5]", "[-1.5]", "[255.9]", "[-255]", "[-256]", "[1.7, -2]", "[70000]",
         "[3, 2**40]", "[True, 2.5]", "[[1.5, True], [2, 0]]", "[float('nan')]",
         "[float('inf')]", "[1e20]", "((1, 2), (3, 4))", "[]", "2.5", "True", "[2**63 - 1]"]
DTYPES = [None, "float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_tensor_from_values_as_torch(text, dtype):
    data = eval(text)

    def make(t):
        r = t.tensor(data, dtype=None if dtype is None else getattr(t, dtype))
        return r, r.tolist()

    check(make, rtol=0, atol=0)


def test_tensor_keeps_the_requested_precision():
    def make(t):
        return [t.tensor(0.7, dtype=t.float64).item(), t.tensor([0.7], dtype=t.float64).tolist(),
                t.tensor([[0.1, 1]], dtype=t.float64).tolist()]

    check(make, rtol=0, atol=0)
    import engine

    assert engine.tensor([0.7], dtype=engine.float64).tolist() == [0.7]


# -- 11. the producing node in the in-place error --------------------------------------------------

def _modified(t, kind):
    x = t.tensor([0.5, 1.5, 2.5], requires_grad=True)
    if kind == "pow0":
        y = x ** 2
        z = y * y
    elif kind == "pow1":
        y = x ** t.tensor([1.0, 2.0, 3.0])
        z = y.exp()
    elif kind == "exp":
        y = x.exp()  # ExpBackward0 saves its output
        z = y.sum()
    elif kind == "leaky_relu1":
        y = x * 1
        _f(t).leaky_relu(y, inplace=True)
        z = y.exp()
    else:
        y = x * 1
        _f(t).elu(y, inplace=True)
        z = y.exp()
    y.add_(1)
    z.sum().backward()


@pytest.mark.parametrize("kind", ["pow0", "pow1", "exp", "leaky_relu1", "elu1"])
def test_modified_error_names_the_node_as_torch(kind):
    # "... which is output 0 of Pow1, is at version 1; ..." (Backward0 nodes: "of Exp")
    check(lambda t: _modified(t, kind))


@pytest.mark.parametrize("case", [
    "torch.nn.functional.linear(torch.zeros(4, 2, dtype=torch.float64), "
    "torch.zeros(8, 2), torch.zeros(8))",
    "torch.nn.functional.linear(torch.zeros(4, 2, dtype=torch.int64), "
    "torch.zeros(8, 2), torch.zeros(8))",
    "torch.nn.functional.linear(torch.zeros(4, 3, dtype=torch.float64), "
    "torch.zeros(8, 2), torch.zeros(8))",
    "torch.addmm(torch.zeros(3, dtype=torch.float64), torch.zeros(2, 2), torch.zeros(2, 3))",
    "torch.addmm(torch.zeros(3), torch.zeros(2, 2, dtype=torch.float64), torch.zeros(3, 3))",
    "torch.addmm(torch.zeros(3), torch.zeros(2, 2), torch.zeros(2, 3))",
])
def test_addmm_checks_dtypes_before_shapes_as_torch(case):
    import engine

    def run(module):
        try:
            return "ok", tuple(eval(case, {"torch": module}).shape)
        except Exception as e:
            return type(e).__name__, str(e).splitlines()[0]

    torch = pytest.importorskip("torch")
    assert run(engine) == run(torch)
