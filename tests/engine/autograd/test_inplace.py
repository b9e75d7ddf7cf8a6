"""In-place ops, item assignment (CopySlices) and version counters, against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

from tests.engine.differential import check, version_of

A = np.array([0.5, -1.5, 2.0], dtype=np.float32)
B = np.array([1.0, 2.0, -0.5], dtype=np.float32)
M = np.arange(6, dtype=np.float32).reshape(2, 3) / 4 - 0.5


def leaves(torch):
    return (torch.tensor(A, requires_grad=True), torch.tensor(B, requires_grad=True))


def run_inplace(body):
    """``body(torch, x, y)`` mutates non-leaf tensors and returns them; then backward."""

    def snippet(torch):
        x, y = leaves(torch)
        out = body(torch, x, y)
        outs = out if isinstance(out, tuple) else (out,)
        total = sum((o * (i + 1.5)).sum() for i, o in enumerate(outs) if o.requires_grad)
        total.backward()
        return {"out": out, "x": x, "y": y}

    return snippet


def plain(body):
    def snippet(torch):
        return body(torch)

    return snippet


CASES = {
    "add_": run_inplace(lambda t, x, y: (x * 1).add_(y)),
    "add_scalar_alpha": run_inplace(lambda t, x, y: (x * 1).add_(y, alpha=2)),
    "sub_": run_inplace(lambda t, x, y: (x + 0).sub_(y)),
    "mul_": run_inplace(lambda t, x, y: (x + 0).mul_(y)),
    "mul_scalar": run_inplace(lambda t, x, y: (x + 0).mul_(3)),
    "div_": run_inplace(lambda t, x, y: (x + 0).div_(y)),
    "div_scalar": run_inplace(lambda t, x, y: (x * 2).div_(4)),
    "iadd": run_inplace(lambda t, x, y: _iadd(x * 1, y)),
    "isub": run_inplace(lambda t, x, y: _isub(x * 1, 2.0)),
    "imul": run_inplace(lambda t, x, y: _imul(x * 1, y)),
    "idiv": run_inplace(lambda t, x, y: _idiv(x * 1, y)),
    "zero_": run_inplace(lambda t, x, y: (x * y).zero_() + y),
    "fill_": run_inplace(lambda t, x, y: (x * y).fill_(2.5) * y),
    "clamp_": run_inplace(lambda t, x, y: (x * y).clamp_(-0.5, 0.5)),
    "clamp_min_": run_inplace(lambda t, x, y: (x * y).clamp_(min=0.0)),
    "clamp_max_keyword": run_inplace(lambda t, x, y: (x * y).clamp_(max=0.25)),
    "clamp_tensor_bounds": run_inplace(lambda t, x, y: (x * 1).clamp_(min=y * 0, max=y)),
    "clamp_tensor_min_only": run_inplace(lambda t, x, y: (x * 1).clamp_(y)),
    "torch_clamp_": run_inplace(lambda t, x, y: t.clamp_(x * y, -0.5, None)),
    "clamp_detached_not_recorded": run_inplace(
        lambda t, x, y: (lambda v: (v.detach().clamp_(min=0.1), v)[1])(x / y)),
    "chain_of_inplace": run_inplace(lambda t, x, y: (x * 1).add_(1).mul_(y).sub_(x)),
    "inplace_on_const_with_grad_other": run_inplace(lambda t, x, y: t.zeros(3).add_(y)),
    "broadcast_other": run_inplace(lambda t, x, y: (x * 1).add_(y[0])),
    "setitem_scalar": run_inplace(lambda t, x, y: _setitem(x * 1, 0, 5.0)),
    "setitem_tensor": run_inplace(lambda t, x, y: _setitem(x * 1, slice(1, None), y[:2] * 2)),
    "setitem_into_const": run_inplace(lambda t, x, y: _setitem(t.zeros(3), 1, y[0] * 3)),
    "setitem_mask": run_inplace(lambda t, x, y: _setitem(x * 1, x > 0, 0.0)),
    "setitem_fancy": run_inplace(lambda t, x, y: _setitem(x * 2, [0, 2], y[:2])),
    # output k > 0 of a multi-output node that is no view, then written in place: the new node
    # has one output
    "second_output_of_var_mean": run_inplace(lambda t, x, y: t.var_mean(x * y)[1].mul_(2)),
    "second_output_of_std_mean_dim": run_inplace(
        lambda t, x, y: t.std_mean(t.stack([x, y]), dim=0)[1].sub_(x)),
    "version_leaf_no_grad": plain(
        lambda t: _versions(t.zeros(3), lambda v: (v.add_(1), v.mul_(2)))),
    "version_views_share": plain(lambda t: _view_versions(t)),
    "version_setitem": plain(lambda t: _versions(t.zeros(3), lambda v: v.__setitem__(0, 1.0))),
    "version_iadd": plain(lambda t: _versions(t.ones(2), lambda v: v.__iadd__(1))),
    "version_zero_fill": plain(lambda t: _versions(t.ones(2), lambda v: (v.zero_(), v.fill_(3)))),
    "no_grad_inplace_on_leaf": plain(lambda t: _no_grad_update(t)),
    "data_inplace_on_leaf": plain(lambda t: _data_update(t)),
    "int_inplace_float_scalar_error": plain(lambda t: t.tensor([1, 2]).add_(1.5)),
    "int_div_inplace_error": plain(lambda t: t.tensor([1, 2]).div_(2)),
    "float_add_int": plain(lambda t: t.tensor([1.0, 2.0]).add_(t.tensor([1, 2]))),
    "broadcast_error": plain(lambda t: t.zeros(3).add_(t.ones(2, 3))),
}


def _iadd(a, b):
    a += b
    return a


def _isub(a, b):
    a -= b
    return a


def _imul(a, b):
    a *= b
    return a


def _idiv(a, b):
    a /= b
    return a


def _setitem(a, index, value):
    a[index] = value
    return a


def _versions(v, mutate):
    before = version_of(v)
    mutate(v)
    return v, before


def _view_versions(t):
    base = t.zeros(2, 3)
    view = base[0]
    view.add_(1)
    other = base.view(6)
    base.mul_(2)
    return base, view, other


def _no_grad_update(t):
    w = t.tensor(A, requires_grad=True)
    (w * w).sum().backward()
    with t.no_grad():
        w -= 0.1 * w.grad
        w.grad.zero_()
    return w


def _data_update(t):
    w = t.tensor(A, requires_grad=True)
    w.data.mul_(2)
    return w


@pytest.mark.parametrize("name", sorted(CASES))
def test_inplace_matches_torch(name):
    check(CASES[name])


# -- in-place writes through views: the base records a CopySlices, the view an AsStrided -----------

def _view_case(body):
    def snippet(torch):
        x = torch.tensor(M, requires_grad=True)
        z = torch.tensor(A, requires_grad=True)
        y = x * 1
        view = body(torch, y, z)
        (y * torch.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))).sum().backward(
            retain_graph=True)
        return {"y": y, "view": view, "x": x, "z": z}

    return snippet


def _mul_view(t, y, z):
    v = y[0]
    v.mul_(2)
    return v


def _add_view_tensor(t, y, z):
    v = y[:, 1]
    v.add_(z[:2])
    return v


def _iadd_item(t, y, z):
    y[0] += 1
    return y[0]


def _setitem_transposed_view(t, y, z):
    v = y.t()
    v[0, 1] = 5.0
    return v


def _setitem_view_tensor(t, y, z):
    v = y[1]
    v[1:] = z[1:] * 3
    return v


def _exp_view(t, y, z):
    v = y.view(6)
    v.exp_()
    return v


def _setitem_view_mask(t, y, z):
    v = y[0]
    v[v > 0] = 0.0
    return v


def _inplace_on_nograd_base_view(t, y, z):
    base = t.zeros(2, 3)
    v = base[0]
    v.add_(z)
    return base


def _detached_inplace(t, y, z):
    d = y.detach()
    d.zero_()
    return d


def _leaf_detach_inplace(t, y, z):
    leaf = t.tensor(A, requires_grad=True)
    leaf.detach().mul_(2)
    return leaf


def _setitem_through_select_0d(t, y, z):
    v = y[0][1]
    v.mul_(3)
    return v


def _view_of_fortran_ordered(t, y, z):
    f = y.t() * 2  # numpy keeps the transposed layout: the base is not C-contiguous
    f[1] += z[:2]
    f[:, 0].mul_(3)
    return f


VIEW_CASES = {
    "view_of_fortran_ordered": _view_case(_view_of_fortran_ordered),
    "inplace_on_0d_select": _view_case(_setitem_through_select_0d),
    "mul_view": _view_case(_mul_view),
    "add_view_tensor": _view_case(_add_view_tensor),
    "iadd_item": _view_case(_iadd_item),
    "setitem_transposed_view": _view_case(_setitem_transposed_view),
    "setitem_view_tensor": _view_case(_setitem_view_tensor),
    "exp_view": _view_case(_exp_view),
    "setitem_view_mask": _view_case(_setitem_view_mask),
    "inplace_on_nograd_base_view": _view_case(_inplace_on_nograd_base_view),
    "detached_inplace": _view_case(_detached_inplace),
    "leaf_detach_inplace": _view_case(_leaf_detach_inplace),
}


@pytest.mark.parametrize("name", sorted(VIEW_CASES))
def test_inplace_through_view_matches_torch(name):
    check(VIEW_CASES[name])


def test_version_reads_like_torchs_int():
    torch = pytest.importorskip("torch")
    import engine

    def observe(t):
        x = t.zeros(3)
        seen = [repr(x._version), str(x._version), x._version == 0]
        x.add_(1)
        x[0] = 2.0
        view = x[1:]
        view.mul_(2)
        seen += [repr(x._version), f"{x._version}", x._version == 3, int(view._version),
                 [0, 1, 2, 3][x._version]]
        return seen

    assert observe(engine) == observe(torch)
