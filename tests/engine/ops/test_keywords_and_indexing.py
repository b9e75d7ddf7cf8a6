"""Differential tests for issue 14 (item 4): the keyword spellings PyTorch's argument parser takes
(numpy's ``axis=`` / ``keepdims=``, ``out=``, the factories' ``size=`` / ``dtype=`` /
``requires_grad=``) and indexing with ranges, lists, bool lists, LongTensors, BoolTensor masks
and None/Ellipsis mixes, read and written (IndexBackward0, IndexPutBackward0). Each case is
compared whole with PyTorch (values, dtypes, grads, the ``grad_fn`` graph, errors by type and
first line)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.engine.differential import check
from tests.engine.ops.test_ops import case, data

M23 = data(2, 3)
M34 = data(3, 4)
T234 = data(2, 3, 4)
A5 = data(5)


def _out(fn, out_shape=(2, 2), dtype="float32"):
    """``fn(torch, out)`` with a fresh ``out``; the result, ``out`` and whether they are one."""
    def snippet(t):
        out = t.zeros(out_shape, dtype=getattr(t, dtype))
        r = fn(t, out)
        return r, out, r is out, int(out._version)
    return snippet


KEYWORDS = {
    # numpy's axis= / keepdims=
    "sum_keepdims": case(lambda t, x: x.sum(1, keepdims=True), M23),
    "sum_axis_keepdims": case(lambda t, x: t.sum(x, axis=0, keepdims=True), M23),
    "mean_keepdims": case(lambda t, x: x.mean(dim=1, keepdims=True), M23),
    "mean_axis": case(lambda t, x: t.mean(x, axis=(0, 1)), M23),
    "max_axis": case(lambda t, x: x.max(axis=1), M23),
    "max_axis_keepdims": case(lambda t, x: t.max(x, axis=1, keepdims=True), M23),
    "min_axis": case(lambda t, x: x.min(axis=0), M23),
    "argmax_axis": case(lambda t, x: x.argmax(axis=1), M23),
    "argmax_keepdims": case(lambda t, x: t.argmax(x, dim=1, keepdims=True), M23),
    "argmin_axis": case(lambda t, x: t.argmin(x, axis=0), M23),
    "std_axis": case(lambda t, x: x.std(axis=1), M23),
    "var_axis_keepdims": case(lambda t, x: t.var(x, axis=1, keepdims=True), M23),
    "prod_axis": case(lambda t, x: x.prod(axis=1, keepdims=True), M23),
    "any_axis": lambda t: t.tensor([[1.0, 0.0], [0.0, 0.0]]).any(axis=1),
    "all_keepdims": lambda t: t.all(t.tensor([[1.0, 0.0], [2.0, 3.0]]), dim=0, keepdims=True),
    "cumsum_axis": case(lambda t, x: x.cumsum(axis=1), M23),
    "softmax_axis": case(lambda t, x: t.softmax(x, axis=1), M23),
    "log_softmax_axis": case(lambda t, x: x.log_softmax(axis=0), M23),
    "amax_axis": case(lambda t, x: x.amax(axis=1, keepdims=True), M23),
    "squeeze_axis": case(lambda t, x: x.unsqueeze(axis=0).squeeze(axis=0), M23),
    "gather_axis": case(lambda t, x: x.gather(axis=1, index=t.tensor([[0], [2]])), M23),
    "index_select_axis": case(lambda t, x: x.index_select(axis=1, index=t.tensor([2])), M23),
    "cumsum_keepdims_refused": case(lambda t, x: t.cumsum(x, 1, keepdims=True), M23),
    # out=
    "add_out": _out(lambda t, o: t.add(t.ones(2, 2), 1, out=o)),
    "add_out_resized": _out(lambda t, o: t.add(t.ones(3), 1, out=o)),
    "add_out_empty": _out(lambda t, o: t.add(t.ones(3), 1, out=o), out_shape=(0,)),
    "add_out_long_refused": _out(lambda t, o: t.add(t.ones(2, 2), 1, out=o), dtype="int64"),
    "add_out_double": _out(lambda t, o: t.add(t.ones(2, 2), t.ones(2), out=o), dtype="float64"),
    "mul_out": _out(lambda t, o: t.mul(t.full((2, 2), 3.0), t.ones(2, 2), out=o)),
    "mul_out_int_into_float": _out(lambda t, o: t.mul(t.ones(2, 2, dtype=t.int64), 2, out=o)),
    "sub_out_alpha": _out(lambda t, o: t.sub(t.ones(2, 2), t.ones(2, 2), alpha=3, out=o)),
    "div_out": _out(lambda t, o: t.div(t.ones(2, 2), 4, out=o)),
    "exp_out": _out(lambda t, o: t.exp(t.ones(2, 2), out=o)),
    "exp_out_double": _out(lambda t, o: t.exp(t.ones(2, 2), out=o), dtype="float64"),
    "gt_out_long": _out(lambda t, o: t.gt(t.ones(2, 2), 0, out=o), dtype="int64"),
    "bool_out_refused": _out(lambda t, o: t.add(t.ones(2, 2), 1, out=o), dtype="bool"),
    "matmul_out": _out(lambda t, o: t.matmul(t.ones(2, 3), t.ones(3, 2), out=o)),
    "matmul_out_double_refused": _out(lambda t, o: t.matmul(t.ones(2, 3), t.ones(3, 2), out=o),
                                      dtype="float64"),
    "mm_out": _out(lambda t, o: t.mm(t.ones(2, 3), t.ones(3, 2), out=o)),
    "dot_out_refused": _out(lambda t, o: t.dot(t.ones(2), t.ones(2), out=o), dtype="float64"),
    "sum_dim_out": _out(lambda t, o: t.sum(t.ones(2, 2), 0, out=o), out_shape=(2,)),
    "sum_dim_out_long": _out(lambda t, o: t.sum(t.ones(2, 2), 1, out=o), out_shape=(2,),
                             dtype="int64"),
    "mean_out": _out(lambda t, o: t.mean(t.ones(2, 2), 0, out=o), out_shape=(2,)),
    "cat_out": _out(lambda t, o: t.cat([t.ones(1, 2), t.zeros(1, 2)], out=o)),
    "cat_out_long_refused": _out(lambda t, o: t.cat([t.ones(1, 2), t.zeros(1, 2)], out=o),
                                 dtype="int64"),
    "stack_out": _out(lambda t, o: t.stack([t.ones(2), t.zeros(2)], 1, out=o)),
    "out_requires_grad_input": case(lambda t, x: t.mul(x, 2, out=t.zeros(2, 3)), M23),
    "out_requires_grad_out": lambda t: t.add(t.ones(2), 1, out=t.zeros(2, requires_grad=True)),
    "out_under_no_grad": case(lambda t, x: _no_grad(t, lambda: t.mul(x, 2, out=t.zeros(2, 3))),
                              M23),
    "rand_out": lambda t: (t.manual_seed(0), _out(lambda t, o: t.rand(2, 2, out=o))(t))[1],
    "randn_out_double": lambda t: (t.manual_seed(1),
                                   _out(lambda t, o: t.randn(3, out=o), dtype="float64")(t))[1],
    "randn_out_same_shape": lambda t: (t.manual_seed(1),
                                       _out(lambda t, o: t.randn(2, 2, out=o))(t))[1],
    "zeros_out": _out(lambda t, o: t.zeros(3, out=o)),
    "ones_out_long": _out(lambda t, o: t.ones(2, 2, out=o), dtype="int64"),
    "arange_out": _out(lambda t, o: t.arange(4, out=o), out_shape=(4,)),
    "full_out": _out(lambda t, o: t.full((2, 2), 7.0, out=o)),
    # size= / dtype= / requires_grad= / device= on the factories
    "zeros_size": lambda t: t.zeros(size=(2, 3)),
    "ones_size_list": lambda t: t.ones(size=[2], dtype=t.int64),
    "empty_size": lambda t: t.empty(size=(2, 3)).shape,
    "full_size": lambda t: t.full(size=(2,), fill_value=2.0, requires_grad=True),
    "zeros_size_twice": lambda t: t.zeros(2, size=(3,)),
    "rand_size": lambda t: (t.manual_seed(2), t.rand(size=(2, 3), requires_grad=True))[1],
    "randn_size": lambda t: (t.manual_seed(3), t.randn(size=(2,), dtype=t.float64))[1],
    "randn_scalar_size": lambda t: (t.manual_seed(4), t.randn(size=(), requires_grad=True))[1],
    "randint_size": lambda t: (t.manual_seed(5), t.randint(5, size=(2, 3)))[1],
    "normal_size": lambda t: (t.manual_seed(6), t.normal(0, 0.01, size=(2, 1),
                                                         requires_grad=True))[1],
    "zeros_rg": lambda t: t.zeros(2, requires_grad=True, dtype=t.float64, device="cpu"),
    "ones_rg_int_refused": lambda t: t.ones(2, requires_grad=True, dtype=t.int64),
    "arange_rg": lambda t: t.arange(4.0, requires_grad=True),
    "arange_dtype": lambda t: t.arange(0, 3, 0.5, dtype=t.float64),
    "eye_rg": lambda t: t.eye(2, 3, requires_grad=True, dtype=t.float64),
    "linspace_rg": lambda t: t.linspace(0, 1, 3, requires_grad=True),
    "empty_rg": lambda t: t.empty(2, requires_grad=True, device="cpu").requires_grad,
    "zeros_like_rg": lambda t: t.zeros_like(t.ones(2), requires_grad=True, dtype=t.float64),
    "ones_like_dtype": lambda t: t.ones_like(t.ones(2), dtype=t.int32),
    "full_like_rg": lambda t: t.full_like(t.ones(2), 3, requires_grad=True),
    # legacy types and nn.init.eye_
    "FloatTensor_data": lambda t: t.FloatTensor([1, 2, 3]),
    "FloatTensor_shape": lambda t: t.FloatTensor(2, 3).shape,
    "LongTensor": lambda t: t.LongTensor([[1, 2]]),
    "DoubleTensor": lambda t: t.DoubleTensor([0.5]),
    "legacy_isinstance": lambda t: (isinstance(t.ones(2), t.FloatTensor),
                                    isinstance(t.ones(2), t.LongTensor),
                                    isinstance(t.ones(2, dtype=t.int64), t.LongTensor)),
    "legacy_repr": lambda t: (repr(t.FloatTensor), repr(t.LongTensor)),
    "type_legacy_class": case(lambda t, x: (x.type(t.DoubleTensor), x.type(t.FloatTensor) is x),
                              M23),
    "type_legacy_str": lambda t: t.ones(2).type("torch.LongTensor"),
    "type_name": lambda t: t.ones(2, dtype=t.int64).type(),
    "init_eye_": lambda t: t.nn.init.eye_(t.empty(2, 3)),
    "init_eye_param": lambda t: (lambda w: (t.nn.init.eye_(w), w))(
        t.empty(3, 2, requires_grad=True)),
    "init_eye_1d_refused": lambda t: t.nn.init.eye_(t.empty(3)),
    "randn_like_rg": lambda t: (t.manual_seed(7), t.randn_like(t.ones(2), requires_grad=True))[1],
}


def _no_grad(t, fn):
    with t.no_grad():
        return fn()


Y3 = np.array([0, 2, 1], dtype=np.int64)


def _set(index, value=-1.0):
    """``x * 1`` with ``[index] = value`` written (an IndexPutBackward0 / CopySlices graph)."""
    def build(t, x):
        y = x * 1
        y[index(t) if callable(index) else index] = value
        return y
    return build


INDEXING = {
    "range_and_long": case(lambda t, x: x[range(3), t.tensor(Y3)], M34),
    "range_and_long_log": case(lambda t, x: -t.log(x.softmax(1)[range(len(x)), t.tensor(Y3)]),
                               M34),
    "range_alone": case(lambda t, x: x[range(1, 3)], M34),
    "range_step": case(lambda t, x: x[:, range(0, 4, 2)], M34),
    "range_empty": case(lambda t, x: x[range(0)], M34),
    "arange_and_long": case(lambda t, x: x[t.arange(3), t.tensor(Y3)].log_softmax(0), M34),
    "list_ints": case(lambda t, x: x[[2, 0, 2]], M34),
    "list_negative": case(lambda t, x: x[[-1, 0]], M34),
    "list_pair": case(lambda t, x: x[[0, 1], [3, 2]], M34),
    "bool_list": case(lambda t, x: x[[True, False, True]], M34),
    "bool_list_dim1": case(lambda t, x: x[:, [True, False, True, False]], M34),
    "long_tensor": case(lambda t, x: x[t.tensor([[0, 1], [2, 2]])], M34),
    "long_tensor_dim1": case(lambda t, x: x[1:, t.tensor([3, 0])], M34),
    "bool_mask": case(lambda t, x: x[x > 0], M34),
    "bool_mask_rows": case(lambda t, x: x[t.tensor([True, False, True])], M34),
    "bool_mask_3d": case(lambda t, x: x[t.tensor([[True, False, True], [False, True, True]])],
                         T234),
    "none_ellipsis": case(lambda t, x: x[None, ..., 1], T234),
    "ellipsis_long": case(lambda t, x: x[..., t.tensor([0, 3])], T234),
    "none_long_none": case(lambda t, x: x[None, t.tensor([1, 0]), None], M34),
    "split_advanced": case(lambda t, x: x[t.tensor([0, 1]), :, t.tensor([3, 2])], T234),
    "int_and_list": case(lambda t, x: x[1, [0, 2]], T234),
    "negative_step_refused": case(lambda t, x: x[::-1], A5),
    "negative_step_dim1_refused": case(lambda t, x: x[:, ::-2], M34),
    "oob_list": case(lambda t, x: x[[3]], M34),
    "float_index_refused": case(lambda t, x: x[t.tensor([0.0])], M34),
    "too_many": case(lambda t, x: x[0, 0, 0], M34),
    "set_range_long": case(_set(lambda t: (range(3), t.tensor(Y3)), 0.0), M34),
    "set_list": case(_set([0, 2]), M34),
    "set_bool_mask": case(lambda t, x: _set(x > 0, 0.0)(t, x), M34),
    "set_long_tensor_value": case(lambda t, x, v: _set(lambda t: t.tensor([2, 0]), v)(t, x), M34,
                                  data(4)),
    "set_bool_list": case(_set([True, False, True], 2.0), M34),
    "set_none_ellipsis": case(_set((None, Ellipsis, 0), 5.0), M34),
    "set_leaf_refused": case(lambda t, x: x.__setitem__([0], 1.0), M34),
    "set_no_grad_range": lambda t: _set(lambda t: (range(2), [1, 0]), 9.0)(t, t.zeros(2, 3)),
    # a value of another shape than its slot: leading size-1 dims dropped (ViewBackward0), then
    # expanded (ExpandBackward0), as PyTorch's copy_to
    "set_0d_slot_from_1x1": case(lambda t, x, v: _set(1, v[:1].reshape(1, 1) * 2)(t, x), A5,
                                 data(4)),
    "set_row_from_1x1x4": case(lambda t, x, v: _set(0, (v * 2)[None, None])(t, x), M34, data(4)),
    "set_rows_broadcast": case(lambda t, x, v: _set(slice(1, 3), v * 2)(t, x), M34, data(4)),
    "set_rows_from_1x4_broadcast": case(lambda t, x, v: _set(slice(0, 2), v[None] * 2)(t, x),
                                        M34, data(4)),
    "set_mask_from_1x1": case(lambda t, x, v: _set(x > 0, v[:1, None] * 2)(t, x), M34, data(4)),
    "set_shape_mismatch": case(lambda t, x, v: _set(0, v[:2])(t, x), M34, data(4)),
    "set_too_many_dims": case(lambda t, x, v: _set(0, v.reshape(2, 2))(t, x), M34, data(4)),
    "set_no_grad_1x1": lambda t: _set(2, t.ones(1, 1) * 3)(t, t.zeros(4)),
}

ALL = {f"kw-{k}": v for k, v in KEYWORDS.items()}
ALL.update({f"index-{k}": v for k, v in INDEXING.items()})


@pytest.mark.parametrize("name", sorted(ALL))
def test_matches_torch(name):
    check(ALL[name])
