"""More differential cases: the less central ops and overloads (Tensor vs Scalar forms, norms,
zero-gradient ops, creation functions, conversions), each compared whole with PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

from tests.engine.differential import check

A = np.array([0.5, -1.5, 2.0], dtype=np.float32)
M = np.arange(6, dtype=np.float32).reshape(2, 3) / 4 - 0.5


def with_leaves(build):
    """``build(torch, x, m)`` on two leaves; its first output is backpropagated (if it can be)."""

    def snippet(t):
        x = t.tensor(A, requires_grad=True)
        m = t.tensor(M, requires_grad=True)
        out = build(t, x, m)
        o = out[0] if isinstance(out, tuple) else out
        if getattr(o, "requires_grad", False):
            weights = t.tensor(np.cos(np.arange(o.numel())).reshape(tuple(o.shape)), dtype=o.dtype)
            (o * weights).sum().backward()
        return out, x, m

    return snippet


CASES = {
 "rsub_tt": lambda t, x, m: t.rsub(x, m),
 "clamp_tensor": lambda t, x, m: x.clamp(min=t.zeros(3)),
 "clamp_tensor_both": lambda t, x, m: t.clamp(m, t.zeros(3), t.ones(3)),
 "pow_0d_tensor": lambda t, x, m: x ** t.tensor(2.0),
 "scalar_tensor_pow": lambda t, x, m: t.tensor(2.0) ** x,
 "0d_times": lambda t, x, m: x.sum() * x,
 "item_chain": lambda t, x, m: x * x.sum().item(),
 "softmax_1d": lambda t, x, m: x.softmax(0),
 "mean_keepdim": lambda t, x, m: m.mean(dim=1, keepdim=True),
 "mean_neg_tuple": lambda t, x, m: m.mean((-1, -2)),
 "sum_empty_tuple": lambda t, x, m: m.sum(()),
 "max_0d": lambda t, x, m: x.sum().max(),
 "argmax": lambda t, x, m: m.argmax(1),
 "argmax_all": lambda t, x, m: m.argmax(),
 "neg_float_div": lambda t, x, m: -x / 3,
 "mixed": lambda t, x, m: (m @ x).relu().sum() + x.norm(),
 "norm": lambda t, x, m: x.norm(),
 "abs_neg0": lambda t, x, m: (x * 0).abs(),
 "relu_zero": lambda t, x, m: (x * 0).relu(),
 "sqrt_zero": lambda t, x, m: (x * 0 + 1).sqrt(),
 "exp_": lambda t, x, m: (x * 1).exp_(),
 "sigmoid_": lambda t, x, m: (x * 1).sigmoid_(),
 "relu_": lambda t, x, m: (x * 1).relu_(),
 "neg_": lambda t, x, m: (x * 1).neg_(),
 "pow_": lambda t, x, m: (x * 1).pow_(2),
 "expand_then_sum": lambda t, x, m: x.expand(4, 3).sum(0),
 "unsqueeze_mul": lambda t, x, m: x.unsqueeze(1) * x.unsqueeze(0),
 "stack_cat_grad": lambda t, x, m: t.cat([t.stack([x, x]), m], dim=0).sum(1),
 "index_twice": lambda t, x, m: x[[0, 0, 1]],
 "mask_assign_grad": lambda t, x, m: t.where(m > 0, m, m * 0.1),
 "flatten_neg": lambda t, x, m: m.flatten(-2, -1),
 "view_as": lambda t, x, m: m.view_as(t.ones(3, 2)),
 "reshape_as": lambda t, x, m: m.reshape_as(t.ones(6)),
 "max_values_indices": lambda t, x, m: m.max(dim=0),
 "min_all_ties": lambda t, x, m: (m * 0).min(),
 "div_int_tensor": lambda t, x, m: x / t.tensor([1, 2, 3]),
 "add_bool": lambda t, x, m: x + t.tensor([True, False, True]),
 "square": lambda t, x, m: x.square() if hasattr(x, "square") else x,
 "sum_dtype_int": lambda t, x, m: t.tensor([1, 2, 3]).sum(dtype=t.float32),
 "x_item_float": lambda t, x, m: x[0].item(),
 "tolist": lambda t, x, m: m.tolist(),
 "type": lambda t, x, m: x.type(),
 "detach_numpy": lambda t, x, m: x.detach().numpy().dtype.name,
 "is_leaf_flags": lambda t, x, m: ((x * 2).is_leaf, x.is_leaf, (x * 2).requires_grad,
                                   x.detach().requires_grad),
 "size_dim": lambda t, x, m: (tuple(m.size()), m.size(-1), m.dim(), m.ndim, m.numel(), m.shape[0]),
 "zeros_like": lambda t, x, m: t.zeros_like(m) + t.ones_like(x, dtype=t.float64)[0],
 "full": lambda t, x, m: t.full((2,), 3),
 "full_float": lambda t, x, m: t.full((2,), 3.0),
 "arange_float": lambda t, x, m: t.arange(0, 1, 0.25),
 "linspace": lambda t, x, m: t.linspace(0, 1, 5),
 "eye": lambda t, x, m: t.eye(2, 3),
 "tensor_from_0d_list": lambda t, x, m: t.tensor([t.tensor(1.0), t.tensor(2.0)]),
 "as_tensor_int": lambda t, x, m: t.as_tensor([1, 2]),
 "from_numpy_f64": lambda t, x, m: t.from_numpy(np.ones(2)),
 "tensor_f64_np": lambda t, x, m: t.tensor(np.ones(2)),
 "tensor_np_scalar": lambda t, x, m: t.tensor(np.float64(2.0)),
 "tensor_bool_list": lambda t, x, m: t.tensor([[True], [False]]),
 "x_eq_scalar": lambda t, x, m: x == 0.5,
 "x_bool_ops": lambda t, x, m: (x > 0) & (x < 1),
 "int_floordiv": lambda t, x, m: t.tensor([5, -5]) // 2,
 "int_mod": lambda t, x, m: t.tensor([5, -5]) % 3,
 "float_mod": lambda t, x, m: x % 1.0,
 "clone_detach": lambda t, x, m: x.clone().detach(),
 "requires_grad_false_detach": lambda t, x, m: x.detach().requires_grad_(),
 "contiguous_t": lambda t, x, m: m.t().is_contiguous(),
}


EXTRA = {
    "remainder_tensor": lambda t, x, m: t.remainder(m, x + 3),
    "fmod_scalar": lambda t, x, m: t.fmod(m * 5, 1.5),
    "fmod_tensor": lambda t, x, m: t.fmod(m * 5, x + 3),
    "floor_divide_scalar": lambda t, x, m: x // 0.7,
    "trunc": lambda t, x, m: (m * 3).trunc(),
    "sign_floor_ceil_round": lambda t, x, m: (m * 3).sign() + m.floor() * m.ceil() + m.round(),
    "amax_dim": lambda t, x, m: m.amax(1),
    "amax_ties": lambda t, x, m: t.tensor([[1.0, 3.0, 3.0]], requires_grad=True).amax(),
    "amin_dims": lambda t, x, m: t.amin(m, (0, 1), keepdim=True),
    "norm_p1": lambda t, x, m: x.norm(p=1),
    "norm_dim": lambda t, x, m: m.norm(dim=1),
    "norm_p3_keepdim": lambda t, x, m: m.norm(p=3, dim=0, keepdim=True),
    "rsub_alpha": lambda t, x, m: t.rsub(x, m, alpha=2),
    "clamp_max_tensor": lambda t, x, m: m.clamp(max=x),
    "floor_divide_backward_error": lambda t, x, m: (x // 2).sum().backward(),
}
CASES.update(EXTRA)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    check(with_leaves(CASES[name]))
