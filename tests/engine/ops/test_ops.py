"""Differential tests: every op of issue 2, in the engine and in PyTorch 2.13, compared whole.

Each case builds leaves from fixed data, runs an expression, backpropagates a non-uniform
gradient and returns the output and the leaves: ``check`` compares values, dtypes, shapes, the
flags, ``.grad`` and the complete ``grad_fn`` graph (names and ``next_functions``).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.engine.differential import check

RNG = np.random.default_rng(1234)


def data(*shape, positive=False, dtype=np.float32):
    a = RNG.standard_normal(shape)
    if positive:
        a = np.abs(a) + 0.5
    return a.astype(dtype)


def case(build, *arrays, backward=True, requires=None):
    """A snippet: leaves from ``arrays`` (floating ones require grad unless ``requires`` says),
    ``build(torch, *leaves)``, then backward with a gradient that differs per element."""

    def snippet(torch):
        leaves = []
        for i, a in enumerate(arrays):
            rg = a.dtype.kind == "f" if requires is None else requires[i]
            leaves.append(torch.tensor(a, requires_grad=rg))
        out = build(torch, *leaves)
        outs = out if isinstance(out, tuple) else (out,)
        if backward:
            for o in outs:
                if getattr(o, "requires_grad", False):
                    g = torch.tensor(np.cos(np.arange(o.numel())).reshape(tuple(o.shape)),
                                     dtype=o.dtype)
                    o.backward(g, retain_graph=True)
        return {"out": out, "leaves": tuple(leaves)}

    return snippet


A3 = data(3)
B3 = data(3)
P3 = data(3, positive=True)
M23 = data(2, 3)
M34 = data(3, 4)
R13 = data(1, 3)
C21 = data(2, 1)
T234 = data(2, 3, 4)
T2345 = data(2, 3, 4, 5)
I3 = np.array([1, 2, 3], dtype=np.int64)
BOOL3 = np.array([True, False, True])
F64_3 = data(3, dtype=np.float64)

ARITH = {
    "add": case(lambda t, x, y: x + y, A3, B3),
    "add_broadcast": case(lambda t, x, y: x + y, M23, R13),
    "add_broadcast_both": case(lambda t, x, y: x + y, C21, R13),
    "add_scalar": case(lambda t, x: x + 2, A3),
    "radd_scalar": case(lambda t, x: 2 + x, A3),
    "add_alpha": case(lambda t, x, y: t.add(x, y, alpha=3), A3, B3),
    "sub": case(lambda t, x, y: x - y, M23, A3),
    "sub_scalar": case(lambda t, x: x - 2, A3),
    "rsub_scalar": case(lambda t, x: 1 - x, A3),
    "rsub_float": case(lambda t, x: 1.5 - x, M23),
    "sub_alpha": case(lambda t, x, y: t.sub(x, y, alpha=2), A3, B3),
    "mul": case(lambda t, x, y: x * y, M23, R13),
    "mul_scalar": case(lambda t, x: x * 2, A3),
    "rmul_scalar": case(lambda t, x: 2 * x, A3),
    "mul_self": case(lambda t, x: x * x, A3),
    "div": case(lambda t, x, y: x / y, M23, P3),
    "div_scalar": case(lambda t, x: x / 2, A3),
    "rdiv_scalar": case(lambda t, x: 2 / x, P3),
    "neg": case(lambda t, x: -x, A3),
    "neg_fn": case(lambda t, x: t.neg(x), A3),
    "pos": case(lambda t, x: +x, A3),
    "pow_scalar": case(lambda t, x: x ** 2, A3),
    "pow_float": case(lambda t, x: x ** 1.5, P3),
    "pow_zero": case(lambda t, x: x ** 0, A3),
    "pow_neg": case(lambda t, x: x ** -1, P3),
    "pow_tensor": case(lambda t, x, y: x ** y, P3, B3),
    "pow_tensor_broadcast": case(lambda t, x, y: t.pow(x, y), data(2, 3, positive=True), R13),
    "rpow": case(lambda t, x: 2 ** x, A3),
    "rpow_float": case(lambda t, x: 0.5 ** x, M23),
    "pow_method": case(lambda t, x: x.pow(3), A3),
    "abs": case(lambda t, x: x.abs(), A3),
    "abs_builtin": case(lambda t, x: abs(x), A3),
    "exp": case(lambda t, x: t.exp(x), A3),
    "log": case(lambda t, x: t.log(x), P3),
    "sqrt": case(lambda t, x: x.sqrt(), P3),
    "sin": case(lambda t, x: x.sin(), M23),
    "cos": case(lambda t, x: t.cos(x), M23),
    "tanh": case(lambda t, x: x.tanh(), M23),
    "sigmoid": case(lambda t, x: t.sigmoid(x), M23),
    "sigmoid_large": case(lambda t, x: t.sigmoid(x * 40), M23),
    "relu": case(lambda t, x: t.relu(x), M23),
    "relu_method": case(lambda t, x: x.relu(), M23),
    "clamp_both": case(lambda t, x: x.clamp(-0.5, 0.5), M23),
    "clamp_min": case(lambda t, x: t.clamp(x, min=0.1), M23),
    "clamp_max": case(lambda t, x: x.clamp(max=0.1), M23),
    "clip": case(lambda t, x: x.clip(-0.2, 0.3), M23),
    "maximum": case(lambda t, x, y: t.maximum(x, y), M23, R13),
    "minimum": case(lambda t, x, y: t.minimum(x, y), M23, R13),
    "maximum_ties": case(lambda t, x, y: t.maximum(x, y), np.float32([1, 2, 3]),
                         np.float32([1, 0, 3])),
    "minimum_ties": case(lambda t, x, y: t.minimum(x, y), np.float32([1, 2, 3]),
                         np.float32([1, 0, 3])),
    "where": case(lambda t, x, y: t.where(x > 0, x, y), M23, R13),
    "where_scalar": case(lambda t, x: t.where(x > 0, x, 0.0), M23),
    "where_method": case(lambda t, x, y: x.where(x > 0, y), M23, R13),
    "chain": case(lambda t, x, y: ((x * y + 1).tanh() - x.exp() / 2).sigmoid(), A3, B3),
    "fan_out": case(lambda t, x: x * x + x.sin() * x, A3),
}

REDUCE = {
    "sum": case(lambda t, x: x.sum(), M23),
    "sum_dim0": case(lambda t, x: x.sum(0), M23),
    "sum_dim_neg": case(lambda t, x: x.sum(-1), T234),
    "sum_keepdim": case(lambda t, x: x.sum(dim=1, keepdim=True), T234),
    "sum_dims": case(lambda t, x: x.sum(dim=(0, 2)), T234),
    "sum_dims_keep": case(lambda t, x: t.sum(x, (0, -1), keepdim=True), T234),
    "sum_int": case(lambda t, x: x.sum(), I3),
    "sum_bool": case(lambda t, x: x.sum(), BOOL3),
    "sum_0dim": case(lambda t, x: x.sum(), np.float32(3.5)),
    "mean": case(lambda t, x: x.mean(), M23),
    "mean_dim": case(lambda t, x: x.mean(1), M23),
    "mean_dim_neg_keep": case(lambda t, x: x.mean(-2, keepdim=True), T234),
    "mean_dims": case(lambda t, x: t.mean(x, (1, 2)), T234),
    "max": case(lambda t, x: x.max(), M23),
    "min": case(lambda t, x: t.min(x), M23),
    "max_ties": case(lambda t, x: x.max(), np.float32([1, 3, 3, 0])),
    "max_dim": case(lambda t, x: tuple(x.max(1)), M23),
    "max_dim_keep": case(lambda t, x: tuple(x.max(dim=-1, keepdim=True)), T234),
    "min_dim": case(lambda t, x: tuple(t.min(x, 0)), M23),
    "max_dim_ties": case(lambda t, x: tuple(x.max(0)), np.float32([[1, 5], [1, 5]])),
    "max_values": case(lambda t, x: x.max(dim=1).values, M23),
    "max_indices": case(lambda t, x: x.min(dim=1).indices, M23),
    "max_binary": case(lambda t, x, y: t.max(x, y), M23, R13),
    "softmax": case(lambda t, x: t.softmax(x, dim=1), M23),
    "softmax_neg": case(lambda t, x: x.softmax(-1), T234),
    "softmax_dim0": case(lambda t, x: t.softmax(x, 0), T234),
    "log_softmax": case(lambda t, x: t.log_softmax(x, dim=1), M23),
    "log_softmax_neg": case(lambda t, x: x.log_softmax(-2), T234),
}

MATRIX = {
    "mm": case(lambda t, a, b: t.mm(a, b), M23, M34),
    "matmul_2d": case(lambda t, a, b: a @ b, M23, M34),
    "mv": case(lambda t, a, b: t.mv(a, b), M23, A3),
    "matmul_2d_1d": case(lambda t, a, b: a @ b, M23, A3),
    "matmul_1d_2d": case(lambda t, a, b: a @ b, A3, M34),
    "dot": case(lambda t, a, b: t.dot(a, b), A3, B3),
    "matmul_1d_1d": case(lambda t, a, b: t.matmul(a, b), A3, B3),
    "matmul_3d_2d": case(lambda t, a, b: a @ b, T234, data(4, 2)),
    "matmul_3d_1d": case(lambda t, a, b: a @ b, T234, data(4)),
    "matmul_1d_3d": case(lambda t, a, b: a @ b, A3, T234),
    "matmul_2d_3d": case(lambda t, a, b: a @ b, data(5, 3), T234),
    "matmul_3d_3d": case(lambda t, a, b: a @ b, T234, data(2, 4, 5)),
    "matmul_batch_broadcast": case(lambda t, a, b: a @ b, data(2, 1, 3, 4), data(5, 4, 2)),
    "matmul_4d": case(lambda t, a, b: t.matmul(a, b), T2345, data(2, 3, 5, 2)),
    "matmul_const_right": case(lambda t, a, b: a @ b, M23, M34, requires=(True, False)),
    "matmul_const_left": case(lambda t, a, b: a @ b, M23, M34, requires=(False, True)),
    "mm_then_add": case(lambda t, a, b, c: a @ b + c, M23, M34, data(4)),
    "linear_like": case(lambda t, x, w, b: x @ w.t() + b, M23, data(4, 3), data(4)),
    "matmul_int": case(lambda t, a, b: a @ b, np.arange(6).reshape(2, 3),
                       np.arange(12).reshape(3, 4)),
    "matmul_rmatmul_np": case(lambda t, a: a @ t.ones(3, 2), M23),
    "matmul_1d_3d_const": case(lambda t, a, b: a @ b, A3, T234, requires=(False, True)),
    "matmul_3d_1d_const": case(lambda t, a, b: a @ b, T234, data(4), requires=(True, False)),
    "matmul_2d_3d_const": case(lambda t, a, b: a @ b, data(5, 3), T234, requires=(False, True)),
    "matmul_3d_2d_const": case(lambda t, a, b: a @ b, T234, data(4, 5), requires=(True, False)),
    "matmul_3d_nc_2d": case(lambda t, a, b: a.transpose(0, 1) @ b, T234, data(4, 5)),
    "matmul_3d_nc_2d_const": case(lambda t, a, b: a.transpose(0, 1) @ b, T234, data(4, 5),
                                  requires=(True, False)),
    "matmul_4d_1d": case(lambda t, a, b: a @ b, T2345, data(5)),
    "matmul_3d_3d_batch_one_left": case(lambda t, a, b: a @ b, data(1, 3, 4), data(2, 4, 5)),
    "matmul_3d_3d_batch_one_right": case(lambda t, a, b: a @ b, T234, data(1, 4, 5)),
    "matmul_3d_3d_batch_one_const": case(lambda t, a, b: a @ b, data(1, 3, 4), data(2, 4, 5),
                                         requires=(False, True)),
    "matmul_nc_3d_1d_const": case(lambda t, a, b: a.transpose(0, 1) @ b, T234, data(4),
                                  requires=(True, False)),
    "matmul_1d_4d": case(lambda t, a, b: a @ b, data(4), T2345),
}

SHAPE = {
    "reshape": case(lambda t, x: x.reshape(3, 2), M23),
    "reshape_tuple": case(lambda t, x: x.reshape((6,)), M23),
    "reshape_infer": case(lambda t, x: t.reshape(x, (-1, 4)), T234),
    "reshape_noncontig": case(lambda t, x: x.t().reshape(6), M23),
    "view": case(lambda t, x: x.view(3, 2), M23),
    "view_infer": case(lambda t, x: x.view(-1), T234),
    "flatten": case(lambda t, x: x.flatten(), T234),
    "flatten_start": case(lambda t, x: t.flatten(x, 1), T234),
    "flatten_range": case(lambda t, x: x.flatten(0, 1), T2345),
    "flatten_1d": case(lambda t, x: x.flatten(), A3),
    "flatten_0d": case(lambda t, x: x.flatten(), np.float32(2.0)),
    "transpose": case(lambda t, x: x.transpose(0, 1), M23),
    "transpose_neg": case(lambda t, x: t.transpose(x, -1, 0), T234),
    "t": case(lambda t, x: x.t(), M23),
    "t_1d": case(lambda t, x: x.t(), A3),
    "T": case(lambda t, x: x.T, M23),
    "T_1d": case(lambda t, x: x.T, A3),
    "permute": case(lambda t, x: x.permute(2, 0, 1), T234),
    "permute_tuple": case(lambda t, x: t.permute(x, (1, 0, 2)), T234),
    "permute_neg": case(lambda t, x: x.permute(-1, 0, 1), T234),
    "squeeze": case(lambda t, x: x.squeeze(), data(1, 3, 1)),
    "squeeze_dim": case(lambda t, x: x.squeeze(0), data(1, 3, 1)),
    "squeeze_dim_noop": case(lambda t, x: x.squeeze(1), data(1, 3, 1)),
    "squeeze_neg": case(lambda t, x: t.squeeze(x, -1), data(1, 3, 1)),
    "squeeze_dims": case(lambda t, x: x.squeeze((0, 2)), data(1, 3, 1)),
    "unsqueeze": case(lambda t, x: x.unsqueeze(0), M23),
    "unsqueeze_neg": case(lambda t, x: t.unsqueeze(x, -1), M23),
    "expand": case(lambda t, x: x.expand(2, 3), R13),
    "expand_new_dims": case(lambda t, x: x.expand(4, 2, 3), R13),
    "expand_minus_one": case(lambda t, x: x.expand(2, -1, 3), data(2, 1, 1)),
    "expand_as": case(lambda t, x, y: x.expand_as(y), R13, M23),
    "contiguous": case(lambda t, x: x.t().contiguous(), M23),
    "contiguous_noop": case(lambda t, x: x.contiguous(), M23),
    "clone": case(lambda t, x: x.clone(), M23),
    "cat": case(lambda t, x, y: t.cat([x, y]), M23, data(1, 3)),
    "cat_dim1": case(lambda t, x, y: t.cat((x, y), dim=1), M23, C21),
    "cat_neg": case(lambda t, x, y, z: t.cat([x, y, z], -1), M23, C21, M23),
    "cat_const": case(lambda t, x, y: t.cat([x, y]), M23, M23, requires=(True, False)),
    "stack": case(lambda t, x, y: t.stack([x, y]), A3, B3),
    "stack_dim": case(lambda t, x, y: t.stack((x, y), dim=1), M23, M23),
    "stack_neg": case(lambda t, x, y: t.stack([x, y], -1), M23, M23),
    "to_double": case(lambda t, x: x.double() * 2, A3),
    "to_dtype": case(lambda t, x: x.to(t.float64), A3),
    "float_noop": case(lambda t, x: x.float(), A3),
    "reshape_alias": case(lambda t, x: x[:, :, :2].reshape(6, 2), T234),
    "reshape_same": case(lambda t, x: x.reshape(2, 3), M23),
    "view_noncontig_ok": case(lambda t, x: x[:, :, :2].view(6, 2), T234),
}

INDEX = {
    "int": case(lambda t, x: x[1], M23),
    "int_neg": case(lambda t, x: x[-1], M23),
    "int_int": case(lambda t, x: x[1, 2], M23),
    "slice": case(lambda t, x: x[1:], M23),
    "slice_step": case(lambda t, x: x[::2], data(5)),
    "slice_cols": case(lambda t, x: x[:, 1:3], M34),
    "slice_full": case(lambda t, x: x[:], M23),
    "slice_neg": case(lambda t, x: x[-2:], data(5)),
    "slice_int": case(lambda t, x: x[1:, 0], M34),
    "none": case(lambda t, x: x[None], A3),
    "none_mid": case(lambda t, x: x[:, None], M23),
    "ellipsis": case(lambda t, x: x[..., 1], T234),
    "ellipsis_only": case(lambda t, x: x[...], M23),
    "fancy_list": case(lambda t, x: x[[0, 2, 2]], A3),
    "fancy_tensor": case(lambda t, x: x[t.tensor([1, 0])], M23),
    "fancy_2d": case(lambda t, x: x[[0, 1], [2, 0]], M23),
    "fancy_mixed": case(lambda t, x: x[:, [0, 2]], M23),
    "bool_mask": case(lambda t, x: x[x > 0], M23),
    "bool_mask_rows": case(lambda t, x: x[t.tensor([True, False])], M23),
    "int_tensor_0d": case(lambda t, x: x[t.tensor(1)], M23),
    "fancy_then_slice": case(lambda t, x: x[[0, 1], 1:], M23),
    "fancy_int": case(lambda t, x: x[[0, 1], 2], M23),
    "fancy_none": case(lambda t, x: x[None, [1, 0]], M23),
    "fancy_ellipsis": case(lambda t, x: x[..., [0, 3]], T234),
    "fancy_split": case(lambda t, x: x[[0, 1], :, [1, 2]], T234),
    "mask_2d_then_dim": case(lambda t, x: x[t.ones(2, 3, dtype=t.bool)], T234),
    "slice_empty": case(lambda t, x: x[2:1], data(5)),
    "select_chain": case(lambda t, x: x[1][0][2], T234),
    "int_int_tuple": case(lambda t, x: x[1, -1, 2], T234),
    "full_slices": case(lambda t, x: x[:, :], M23),
    "full_slice_explicit": case(lambda t, x: x[:, 0:3], M23),
}

PROMOTION = {
    "int_plus_float_scalar": case(lambda t, x: x + 1.5, I3),
    "int_plus_int_scalar": case(lambda t, x: x + 1, I3),
    "int_div_int": case(lambda t, x: x / 2, I3),
    "int_div_tensor": case(lambda t, x, y: x / y, I3, I3),
    "int_times_float": case(lambda t, x, y: x * y, I3, A3),
    "bool_plus_int": case(lambda t, x: x + 1, BOOL3),
    "bool_plus_bool": case(lambda t, x, y: x + y, BOOL3, BOOL3),
    "bool_times_float": case(lambda t, x, y: x * y, BOOL3, A3),
    "f32_plus_f64": case(lambda t, x, y: x + y, A3, F64_3),
    "f64_plus_scalar": case(lambda t, x: x * 2.5, F64_3),
    "f32_plus_0d_f64": case(lambda t, x, y: x + y, A3, np.float64(2.0)),
    "int_plus_0d_float": case(lambda t, x, y: x + y, I3, np.float64(2.0)),
    "0d_plus_0d": case(lambda t, x, y: x + y, np.float32(1.0), np.float64(2.0)),
    "int_pow_float": case(lambda t, x: x ** 0.5, I3),
    "int_pow_int": case(lambda t, x: x ** 2, I3),
    "rpow_int": case(lambda t, x: 2 ** x, I3),
    "int_neg": case(lambda t, x: -x, I3),
    "int_abs": case(lambda t, x: x.abs(), I3),
    "int_exp": case(lambda t, x: x.exp(), I3),
    "int_sqrt": case(lambda t, x: t.sqrt(x), I3),
    "int_sigmoid": case(lambda t, x: x.sigmoid(), I3),
    "int_clamp": case(lambda t, x: x.clamp(0, 2), I3),
    "int_clamp_float": case(lambda t, x: x.clamp(0.5, 2.5), I3),
    "int_max": case(lambda t, x: x.max(), I3),
    "int_maximum_float": case(lambda t, x, y: t.maximum(x, y), I3, A3),
    "where_int_float": case(lambda t, x, y: t.where(y > 0, x, y), I3, A3),
    "where_int_scalar": case(lambda t, x: t.where(x > 1, x, 0.5), I3),
    "cat_promote": case(lambda t, x, y: t.cat([x, y]), I3, A3),
    "compare": case(lambda t, x, y: (x > y, x == y, x <= 0.0), A3, B3),
    "f64_softmax": case(lambda t, x: x.softmax(0), F64_3),
    "f64_matmul": case(lambda t, x: x @ x, F64_3),
    "sum_dtype": case(lambda t, x: x.sum(dtype=t.float64), A3),
}

# The rows no table above reaches: comparisons and tests, the losses' rows, in-place writes,
# iteration and the fused backward rows of a create_graph backward
V4 = data(4)
LOGP = data(3, 3)
P33 = np.abs(data(3, 3)) + 0.1


def _writes(t, x, z):
    y = x * 1
    v = y[0]
    v.mul_(2)  # the base records a CopySlices, the view an AsStrided
    u = x * 1
    u[1] = z
    w = z * 1
    w[t.tensor([0, 2])] = z[1]  # tensor indices: IndexPutBackward0
    return y, v, u, w, (z * 1).zero_(), (z * 1).fill_(2.0), (z * 1).copy_(x[0])


def _fused_second_order(t, x):
    (g,) = t.autograd.grad(x.tanh().sum() + x.sigmoid().sum(), x, create_graph=True)
    return g


def _cross_entropies(t, x, y):
    F = t.nn.functional
    target = t.tensor([0, 2, 1])
    return (F.cross_entropy(x, target, label_smoothing=0.1, ignore_index=1),
            F.cross_entropy(x, y.softmax(1)))


OTHERS = {
    "ne_ge": case(lambda t, x, y: (x != y, x >= y, t.ne(x, 0.5), t.ge(x, y)), A3, B3),
    "isnan_isinf_isfinite": case(lambda t, x: (t.isnan(x * 0 / 0), t.isinf(x / 0),
                                               x.isfinite(), (x / 0).isinf()), A3),
    "logical": case(lambda t, x, y: (t.logical_or(x > 0, y > 0), (x > 0) | (y > 0),
                                     t.logical_not(x > 0), ~(y > 0)), A3, B3),
    "argmax_argmin": case(lambda t, x: (x.argmax(), t.argmin(x, dim=1, keepdim=True),
                                        t.argmax(x, 0)), M23),
    "addmm": case(lambda t, c, a, b: t.addmm(c, a, b), V4, M23, M34),
    "floor_divide_tensor": case(lambda t, x, y: t.floor_divide(x, y), A3, P3, backward=False),
    "unbind": case(lambda t, x: tuple(x), M23),
    "unbind_method": case(lambda t, x: x.unbind(1), M23),
    "nll_loss": case(lambda t, x: t.nn.functional.nll_loss(x.log_softmax(1), t.tensor([0, 2, 1])),
                     LOGP),
    "nll_loss2d": case(lambda t, x: t.nn.functional.nll_loss(
        x.log_softmax(1), t.tensor([[0, 2, 1, 0], [1, 1, 2, 0]])), T234),
    "cross_entropy": case(_cross_entropies, LOGP, P33),
    "bce": case(lambda t, x, y: t.nn.functional.binary_cross_entropy(x.sigmoid(), y.sigmoid()),
                M23, M23.T.T * 0.5),
    "bce_logits": case(lambda t, x, y: t.nn.functional.binary_cross_entropy_with_logits(
        x, y.sigmoid(), pos_weight=t.tensor([1.0, 2.0, 0.5])), M23, P33[:2]),
    "writes": case(_writes, M23, A3),
    "fused_second_order": case(_fused_second_order, A3),
}

ALL = {**{f"arith-{k}": v for k, v in ARITH.items()},
       **{f"reduce-{k}": v for k, v in REDUCE.items()},
       **{f"matrix-{k}": v for k, v in MATRIX.items()},
       **{f"shape-{k}": v for k, v in SHAPE.items()},
       **{f"index-{k}": v for k, v in INDEX.items()},
       **{f"promote-{k}": v for k, v in PROMOTION.items()},
       **{f"others-{k}": v for k, v in OTHERS.items()}}


@pytest.mark.parametrize("name", sorted(ALL))
def test_op_matches_torch(name):
    check(ALL[name])
