"""PyTorch's errors, table-driven: the engine must raise the same exception type with the same
first line of message (``check`` compares the exception's type name and first line)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.engine.differential import check, describe, run


def leaf(t, *shape):
    return t.ones(*shape, requires_grad=True) if shape else t.tensor(1.5, requires_grad=True)


def _backward_twice(t):
    x = leaf(t, 3)
    y = (x * x).sum()
    y.backward()
    y.backward()


def _backward_twice_exp(t):
    x = leaf(t, 3)
    y = x.exp().sum()
    y.backward()
    y.backward()


def _modified_input(t):
    x = leaf(t, 3)
    y = x * 2
    z = y * y
    y.add_(1)
    z.sum().backward()


def _modified_output(t):
    x = leaf(t, 3)
    y = x.exp()
    y.mul_(2)
    y.sum().backward()


def _modified_sigmoid(t):
    x = leaf(t, 2, 2)
    y = x.sigmoid()
    y += 1
    y.sum().backward()


def _modified_double(t):
    x = t.ones(2, 3, dtype=t.float64, requires_grad=True)
    y = x.tanh()
    y.zero_()
    y.sum().backward()


def _modified_leaf(t):
    x = leaf(t, 3)
    w = t.ones(3)
    y = (x * w).sum()
    w.add_(1)
    y.backward()


def _inplace_leaf(t):
    x = leaf(t, 3)
    x.add_(1)


def _inplace_leaf_iadd(t):
    x = leaf(t, 3)
    x += 1


def _inplace_leaf_view(t):
    x = leaf(t, 3)
    x[0].mul_(2)


def _setitem_leaf(t):
    x = leaf(t, 3)
    x[0] = 2.0


def _wrong_gradient_shape(t):
    x = leaf(t, 3)
    (x * 2).backward(t.ones(2))


def _grad_not_used(t):
    x = leaf(t, 3)
    y = leaf(t, 3)
    return t.autograd.grad((x * 2).sum(), [x, y])


def _grad_input_no_grad(t):
    x = leaf(t, 3)
    return t.autograd.grad((x * 2).sum(), [t.ones(3)])


def _retain_grad_no_grad(t):
    t.ones(3).retain_grad()


def _hook_no_grad(t):
    t.ones(3).register_hook(lambda g: g)


def _detach_view_(t):
    x = leaf(t, 3) * 1
    x[0:2].detach_()


def _nonleaf_requires_grad_false(t):
    (leaf(t, 3) * 2).requires_grad_(False)


def _no_grad_view(t, write):
    x = leaf(t, 3)
    y = x * 1
    with t.no_grad():
        v = y[0:2]
    write(v)


def _no_grad_view_of_leaf(t):
    x = leaf(t, 3)
    with t.no_grad():
        v = x.view(3)
    v.add_(1)


def _detached_inplace_allowed(t):
    x = leaf(t, 3)
    d = (x * 1).detach()
    d.zero_()
    x.detach().mul_(2)
    raise ValueError(f"reached the end: {d.tolist()} {x.tolist()}")


ERRORS = {
    "no_grad_view_inplace": lambda t: _no_grad_view(t, lambda v: v.mul_(2)),
    "no_grad_view_setitem_int": lambda t: _no_grad_view(t, lambda v: v.__setitem__(0, 1.0)),
    "no_grad_view_setitem_slice": lambda t: _no_grad_view(
        t, lambda v: v.__setitem__(slice(0, 1), 1.0)),
    "no_grad_view_of_leaf": _no_grad_view_of_leaf,
    "detached_inplace_allowed": _detached_inplace_allowed,
    # backward
    "nonscalar_backward": lambda t: (leaf(t, 3) * 2).backward(),
    "no_grad_fn": lambda t: t.ones(3).sum().backward(),
    "no_grad_fn_leaf": lambda t: t.ones(1).backward(),
    "no_grad_in_no_grad_mode": lambda t: _in_no_grad(t),
    "freed_graph": _backward_twice,
    "freed_graph_exp": _backward_twice_exp,
    "modified_saved_input": _modified_input,
    "modified_saved_output": _modified_output,
    "modified_sigmoid": _modified_sigmoid,
    "modified_double": _modified_double,
    "modified_saved_leaf": _modified_leaf,
    "wrong_gradient_shape": _wrong_gradient_shape,
    "grad_unused_input": _grad_not_used,
    "grad_input_without_grad": _grad_input_no_grad,
    "int_backward": lambda t: t.tensor(3).backward(),
    # in-place on leaves
    "inplace_leaf": _inplace_leaf,
    "inplace_leaf_iadd": _inplace_leaf_iadd,
    "inplace_leaf_view": _inplace_leaf_view,
    "setitem_leaf": _setitem_leaf,
    "zero_leaf": lambda t: leaf(t, 3).zero_(),
    # flags
    "int_requires_grad": lambda t: t.tensor([1, 2], requires_grad=True),
    "int_requires_grad_": lambda t: t.tensor([1, 2]).requires_grad_(),
    "bool_requires_grad": lambda t: t.tensor([True]).requires_grad_(),
    "arange_requires_grad": lambda t: t.arange(3, requires_grad=True),
    "nonleaf_requires_grad_false": _nonleaf_requires_grad_false,
    "retain_grad_no_grad": _retain_grad_no_grad,
    "hook_no_grad": _hook_no_grad,
    "detach_view_inplace": _detach_view_,
    # values out
    "item_many": lambda t: t.ones(3).item(),
    "item_empty": lambda t: t.ones(0).item(),
    "numpy_requires_grad": lambda t: leaf(t, 3).numpy(),
    "numpy_nonleaf": lambda t: (leaf(t, 3) * 2).numpy(),
    "bool_many": lambda t: bool(t.ones(2)),
    "len_0d": lambda t: len(t.tensor(1.0)),
    "iter_0d": lambda t: iter(t.tensor(1.0)),
    # shapes
    "broadcast_add": lambda t: t.ones(2, 3) + t.ones(4),
    "broadcast_mul": lambda t: t.ones(3) * t.ones(2, 2),
    "broadcast_sub_dim": lambda t: t.ones(2, 3, 4) - t.ones(3, 3, 4),
    "broadcast_div": lambda t: t.ones(5) / t.ones(4),
    "broadcast_pow": lambda t: t.ones(5) ** t.ones(4),
    "broadcast_maximum": lambda t: t.maximum(t.ones(5), t.ones(4)),
    "broadcast_where": lambda t: t.where(t.ones(5) > 0, t.ones(5), t.ones(4)),
    "mm_mismatch": lambda t: t.ones(2, 3) @ t.ones(2, 3),
    "mm_fn_mismatch": lambda t: t.mm(t.ones(2, 3), t.ones(4, 2)),
    "mm_not_matrix": lambda t: t.mm(t.ones(3), t.ones(3, 2)),
    "mv_mismatch": lambda t: t.ones(2, 3) @ t.ones(4),
    "dot_mismatch": lambda t: t.ones(3) @ t.ones(4),
    "dot_not_1d": lambda t: t.dot(t.ones(2, 2), t.ones(2)),
    "vm_mismatch": lambda t: t.ones(4) @ t.ones(3, 2),
    "bmm_mismatch": lambda t: t.ones(2, 3, 4) @ t.ones(2, 5, 6),
    "matmul_0d": lambda t: t.tensor(1.0) @ t.ones(3),
    "view_numel": lambda t: t.ones(2, 3).view(4),
    "view_infer_bad": lambda t: t.ones(2, 3).view(-1, 4),
    "view_two_infer": lambda t: t.ones(2, 3).view(-1, -1),
    "view_noncontiguous": lambda t: t.ones(2, 3).t().view(6),
    "reshape_numel": lambda t: t.ones(2, 3).reshape(7),
    "expand_bad": lambda t: t.ones(2, 3).expand(3, 3),
    "expand_fewer_dims": lambda t: t.ones(2, 3).expand(3),
    "cat_shapes": lambda t: t.cat([t.ones(2, 3), t.ones(2, 4)]),
    "cat_empty_list": lambda t: t.cat([]),
    "stack_shapes": lambda t: t.stack([t.ones(2), t.ones(3)]),
    "permute_wrong_len": lambda t: t.ones(2, 3).permute(0),
    "t_3d": lambda t: t.ones(2, 3, 4).t(),
    "dim_out_of_range": lambda t: t.ones(2, 3).sum(2),
    "dim_out_of_range_neg": lambda t: t.ones(2, 3).softmax(-3),
    "transpose_out_of_range": lambda t: t.ones(2, 3).transpose(0, 2),
    "unsqueeze_out_of_range": lambda t: t.ones(2).unsqueeze(3),
    "index_out_of_range": lambda t: t.ones(3)[3],
    "index_out_of_range_2d": lambda t: t.ones(2, 3)[1, 5],
    "too_many_indices": lambda t: t.ones(3)[0, 0],
    "fancy_out_of_range": lambda t: t.ones(3)[[0, 5]],
    "mean_int": lambda t: t.tensor([1, 2]).mean(),
    "max_empty": lambda t: t.ones(0).max(),
    "clamp_none": lambda t: t.ones(2).clamp(),
    "inplace_broadcast_output": lambda t: t.ones(3).add_(t.ones(2, 3)),
    "inplace_int_result_float": lambda t: t.tensor([1, 2]).mul_(1.5),
    "tensor_ragged": lambda t: t.tensor([[1, 2], [3]]),
    "size_negative": lambda t: t.zeros(-1),
    "requires_grad_setter_int": lambda t: setattr(t.tensor([1, 2]), "requires_grad", True),
    "view_not_divisible": lambda t: t.ones(2, 3).view(4, -1),
    "sum_repeated_dim": lambda t: t.ones(2, 3).sum(dim=(0, 0)),
    "grad_nonscalar_output": lambda t: t.autograd.grad(leaf(t, 3) * 2, leaf(t, 3)),
    "index_with_float_tensor": lambda t: t.ones(3)[t.tensor([0.0])],
    "grad_assign_type": lambda t: _assign_grad(t, [1.0, 2.0, 3.0]),
    "backward_empty_inputs": lambda t: (leaf(t, 3) * 2).sum().backward(inputs=[]),
    "cat_dims_differ": lambda t: t.cat([t.ones(2, 3), t.ones(3)]),
    "squeeze_out_of_range": lambda t: t.ones(2, 1).squeeze(2),
    "softmax_out_of_range": lambda t: t.ones(2).softmax(1),
    "grad_assign_shape": lambda t: _assign_grad(t, t.ones(2)),
    "grad_assign_dtype": lambda t: _assign_grad(t, t.ones(3, dtype=t.float64)),
}


def _in_no_grad(t):
    x = leaf(t, 3)
    with t.no_grad():
        y = (x * 2).sum()
    y.backward()


def _assign_grad(t, g):
    x = leaf(t, 3)
    x.grad = g


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error_matches_torch(name):
    expected = check(ERRORS[name])
    assert isinstance(expected, dict) and expected.get("kind") == "error", (
        f"{name}: torch raised nothing, so the case tests nothing"
    )


def test_error_table_is_not_vacuous():
    """``check`` on an error compares the message: a different message must fail it."""
    torch = pytest.importorskip("torch")
    import engine

    a = describe(run(torch, ERRORS["item_many"]))
    b = describe(run(engine, ERRORS["view_numel"]))
    assert a != b
    assert np.all([describe(run(torch, ERRORS[k]))["kind"] == "error" for k in ("mm_mismatch",)])
