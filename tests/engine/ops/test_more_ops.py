"""Differential tests for the tensor API of issue 14 (item 4): more pointwise math, in-place
spellings, all/any, new_*, tril/triu, masked_fill, gather/scatter, index_select/index_copy,
topk/sort/argsort, chunk/split, repeat/tile/flip/roll, F.pad, F.one_hot, outer/diag/trace, and
the keyword spellings. Each case is compared whole with PyTorch (values, dtypes, grads, the
``grad_fn`` graph, errors by type and first line)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.engine.differential import check
from tests.engine.ops.test_ops import case, data

A3 = data(3)
U3 = np.array([0.1, -0.5, 0.7], dtype=np.float32)  # inside (-1, 1)
M23 = data(2, 3)
M34 = data(3, 4)
T234 = data(2, 3, 4)
I3 = np.array([1, 2, 3], dtype=np.int64)
I23 = np.arange(6, dtype=np.int64).reshape(2, 3)
F64_3 = data(3, dtype=np.float64)


def _inplace(name, *args):
    """``(x * 1).name_(*args)``: the in-place method on a non-leaf."""
    return lambda t, x: getattr(x * 1, name)(*args)


POINTWISE = {}
for _n, _x in (("log10", np.abs(A3) + 0.5), ("log2", np.abs(A3) + 0.5), ("asin", U3),
               ("acos", U3), ("atan", A3), ("sinh", A3), ("cosh", A3), ("arcsin", U3),
               ("arccos", U3), ("arctan", A3)):
    POINTWISE[_n] = case(lambda t, x, n=_n: getattr(t, n)(x), _x)
    POINTWISE[_n + "_method"] = case(lambda t, x, n=_n: getattr(x, n)(), _x)
    POINTWISE[_n + "_"] = case(_inplace(_n + "_"), _x)
    POINTWISE[_n + "_int"] = case(lambda t, x, n=_n: getattr(t, n)(x), I3 if "log" in _n
                                  else np.array([0, 1, -1]))
    POINTWISE[_n + "_f64"] = case(lambda t, x, n=_n: getattr(t, n)(x), F64_3 * 0.5)
    POINTWISE[_n + "_int_inplace"] = case(_inplace(_n + "_"), I3)
POINTWISE.update({
    "atan2": case(lambda t, x, y: t.atan2(x, y), A3, M23),
    "atan2_method": case(lambda t, x, y: x.atan2(y), M23, A3),
    "arctan2": case(lambda t, x, y: t.arctan2(x, y), A3, data(3)),
    "atan2_": case(lambda t, x, y: (x * 1).atan2_(y), M23, A3),
    "atan2_int": case(lambda t, x, y: t.atan2(x, y), I3, I3),
    "atan2_mismatch": case(lambda t, x, y: t.atan2(x, y), A3, data(2)),
    "log10_bad_arg": case(lambda t, x: t.log10(x, 2), A3),
})
for _n, _x in (("sin", A3), ("cos", A3), ("log1p", np.abs(A3)), ("expm1", A3),
               ("reciprocal", np.abs(A3) + 0.5), ("sign", A3), ("floor", A3), ("ceil", A3),
               ("trunc", A3), ("fix", A3), ("round", A3), ("exp", A3), ("sqrt", np.abs(A3)),
               ("neg", A3), ("abs", A3), ("tanh", A3), ("sigmoid", A3), ("relu", A3),
               ("log", np.abs(A3) + 0.1)):
    POINTWISE[_n + "_inplace"] = case(_inplace(_n + "_"), _x)
POINTWISE.update({
    "sin_int_inplace": case(_inplace("sin_"), I3),
    "floor_int_inplace": case(_inplace("floor_"), I3),
    "clamp_": case(lambda t, x: (x * 1).clamp_(-0.5, 0.5), A3),
    "clamp_min_kw": case(lambda t, x: (x * 1).clamp_(min=0.0), A3),
    "clip_": case(lambda t, x: (x * 1).clip_(max=0.1), A3),
    "sin_leaf": case(lambda t, x: x.sin_(), A3),
})

BOOL23 = np.array([[True, False, True], [False, False, True]])
IDX = [[0, 2, 1, 0], [1, 1, 0, 2], [2, 0, 0, 1]]  # for a (3, 4) along dim 0 or (3, <=3) along 1


def _ix(t, rows=IDX):
    return t.tensor(rows)


SELECT = {
    "all": lambda t: (t.tensor([[1.0, 0.0], [2.0, 3.0]]).all(), t.tensor([1, 2]).all()),
    "all_dim": lambda t: t.tensor([[True, False], [True, True]]).all(1),
    "all_dim_keepdim": lambda t: t.all(t.tensor([[True, False], [True, True]]), dim=0,
                                       keepdim=True),
    "any_dim_tuple": lambda t: t.tensor(BOOL23).any((0, 1)),
    "any": lambda t: (t.any(t.tensor([0.0, 0.0])), t.tensor([0, 3]).any(0)),
    "all_uint8": lambda t: t.tensor([1, 2], dtype=t.uint8).all(),
    "all_bad_dim": lambda t: t.tensor(BOOL23).all(2),
    "new_ones": lambda t: (t.ones(2, dtype=t.int64).new_ones(2, 3),
                           t.zeros(1).new_ones((2,), dtype=t.float64)),
    "new_zeros_rg": lambda t: t.zeros(1).new_zeros([2, 2], requires_grad=True),
    "new_full": lambda t: t.ones(2, dtype=t.int64).new_full((2, 2), 1.5),
    "new_tensor": lambda t: (t.ones(2, dtype=t.int64).new_tensor([1.5, 2.0]),
                             t.zeros(1).new_tensor([[1, 2]]),
                             t.zeros(1).new_tensor([1, 2], dtype=t.int32, requires_grad=False)),
    "new_empty_shape": lambda t: t.zeros(1, dtype=t.float64).new_empty(2, 3).shape,
    "tril": case(lambda t, x: t.tril(x), M34),
    "tril_diag": case(lambda t, x: x.tril(diagonal=1), T234),
    "triu": case(lambda t, x: t.triu(x, -1), M34),
    "triu_method": case(lambda t, x: x.triu(2), M34),
    "tril_": case(lambda t, x: (x * 1).tril_(), M34),
    "triu_": case(lambda t, x: (x * 1).triu_(1), M34),
    "tril_int": lambda t: t.tril(t.ones(3, 3, dtype=t.int64)),
    "tril_1d": case(lambda t, x: t.tril(x), A3),
    "masked_fill": case(lambda t, x: x.masked_fill(t.tensor(BOOL23), -1.0), M23),
    "masked_fill_fn": case(lambda t, x: t.masked_fill(x, t.tensor(BOOL23[0]), 2.5), M23),
    "masked_fill_": case(lambda t, x: (x * 1).masked_fill_(t.tensor(BOOL23), 0.0), M23),
    "masked_fill_tensor": case(lambda t, x, v: x.masked_fill(t.tensor(BOOL23), v), M23,
                               np.array(3.0, dtype=np.float32)),
    "masked_fill_int": lambda t: t.tensor([1, 2, 3]).masked_fill(t.tensor([True, False, True]),
                                                                  2.5),
    "masked_fill_long_mask": case(lambda t, x: x.masked_fill(t.tensor([1, 0, 1]), 1.0), M23),
    "masked_fill_1d_value": case(lambda t, x: x.masked_fill(t.tensor(BOOL23), t.tensor([1.0])),
                                 M23),
    "masked_fill__broadcast": case(lambda t, x: (x * 1)[0].masked_fill_(t.tensor(BOOL23), 1.0),
                                   M23),
    "gather": case(lambda t, x: x.gather(0, _ix(t)), M34),
    "gather_dim1": case(lambda t, x: t.gather(x, 1, _ix(t, [[0, 0], [2, 1], [3, 3]])), M34),
    "gather_small": case(lambda t, x: x.gather(-1, _ix(t, [[1], [0]])), M34),
    "gather_int": lambda t: t.tensor(I23).gather(1, t.tensor([[2, 0], [1, 1]])),
    "gather_bad_dim": case(lambda t, x: x.gather(2, _ix(t)), M34),
    "gather_oob": case(lambda t, x: x.gather(1, t.tensor([[5]])), M34),
    "gather_float_index": case(lambda t, x: x.gather(1, t.tensor([[0.0]])), M34),
    "gather_ndim": case(lambda t, x: x.gather(1, t.tensor([0])), M34),
    "gather_too_big": case(lambda t, x: x.gather(1, t.zeros(4, 4, dtype=t.long)), M34),
    "scatter": case(lambda t, x, s: x.scatter(1, _ix(t, [[0, 1], [2, 3], [1, 0]]), s), M34,
                    data(3, 2)),
    "scatter_src_larger": case(lambda t, x, s: t.scatter(x, 0, _ix(t, [[0, 1, 2, 0]]), s), M34,
                               data(2, 4)),
    "scatter_value": case(lambda t, x: x.scatter(0, _ix(t, [[2, 1, 0, 1]]), 2.0), M34),
    "scatter_value_kw": case(lambda t, x: x.scatter(0, _ix(t, [[2, 1, 0, 1]]), value=-1.0),
                             M34),
    "scatter_": case(lambda t, x, s: (x * 1).scatter_(1, _ix(t, [[0], [3], [2]]), s), M34,
                     data(3, 1)),
    "scatter__value": case(lambda t, x: (x * 1).scatter_(1, _ix(t, [[0], [3], [2]]), 0.5), M34),
    "scatter_add": case(lambda t, x, s: x.scatter_add(0, _ix(t, [[0, 0, 1, 2], [0, 1, 1, 2]]), s),
                        M34, data(2, 4)),
    "scatter_add_src_larger": case(lambda t, x, s: x.scatter_add(0, _ix(t, [[0, 1, 2, 0]]), s),
                                   M34, data(2, 4)),
    "scatter_add_fn": case(lambda t, x, s: t.scatter_add(x, 1, _ix(t, [[0, 0], [1, 1], [3, 3]]),
                                                           s), M34, data(3, 2)),
    "scatter_add_": case(lambda t, x, s: (x * 1).scatter_add_(1, _ix(t, [[0, 0], [1, 1], [3, 3]]),
                                                                s), M34, data(3, 2)),
    "scatter_int": lambda t: t.zeros(2, 3, dtype=t.int64).scatter(1, t.tensor([[2], [0]]),
                                                                  t.tensor([[7], [8]])),
    "scatter_too_big": case(lambda t, x, s: x.scatter(1, t.zeros(4, 4, dtype=t.long), s), M34,
                            data(4, 4)),
    "scatter_src_small": case(lambda t, x, s: x.scatter(1, t.zeros(2, 2, dtype=t.long), s), M34,
                              data(1, 1)),
    "scatter_oob": case(lambda t, x: x.scatter(1, t.tensor([[4]]), 1.0), M34),
    "scatter_dtype": case(lambda t, x: x.scatter(1, t.tensor([[0]]), t.ones(1, 1,
                                                                          dtype=t.float64)), M34),
    "index_select": case(lambda t, x: x.index_select(1, t.tensor([0, 2, 2])), M34),
    "index_select_fn": case(lambda t, x: t.index_select(x, 0, t.tensor([2, 0])), M34),
    "index_select_3d": case(lambda t, x: x.index_select(-1, t.tensor([3, 1])), T234),
    "index_select_int": lambda t: t.tensor(I23).index_select(0, t.tensor([1, 1])),
    "index_select_oob": case(lambda t, x: x.index_select(1, t.tensor([4])), M34),
    "index_select_2d_index": case(lambda t, x: x.index_select(1, t.tensor([[0]])), M34),
    "index_select_float_index": case(lambda t, x: x.index_select(1, t.tensor([0.0])), M34),
    "index_copy": case(lambda t, x, s: x.index_copy(1, t.tensor([0, 2]), s), M34, data(3, 2)),
    "index_copy_": case(lambda t, x, s: (x * 1).index_copy_(0, t.tensor([2, 0]), s), M34,
                        data(2, 4)),
    "index_copy_fn": case(lambda t, x, s: t.index_copy(x, 0, t.tensor([1]), s), M34, data(1, 4)),
    "index_copy_count": case(lambda t, x, s: (x * 1).index_copy_(1, t.tensor([0]), s), M34,
                             data(3, 2)),
    "index_copy_leaf": case(lambda t, x, s: x.index_copy_(1, t.tensor([0]), s), M34, data(3, 1)),
}

SHAPE = {
    "flip": case(lambda t, x: t.flip(x, [0, 1]), M34),
    "flip_method": case(lambda t, x: x.flip(-1), T234),
    "flip_method_tuple": case(lambda t, x: x.flip((0, 2)), T234),
    "flip_int": lambda t: t.flip(t.tensor(I23), (1,)),
    "flip_dup": case(lambda t, x: x.flip(0, 0), M34),
    "flip_oob": case(lambda t, x: x.flip(2), M34),
    "flip_int_dims": case(lambda t, x: t.flip(x, 0), M34),
    "repeat": case(lambda t, x: x.repeat(2, 1), M23),
    "repeat_more_dims": case(lambda t, x: x.repeat(2, 1, 3), M23),
    "repeat_tuple": case(lambda t, x: x.repeat((1, 2)), M23),
    "repeat_int": lambda t: t.tensor(I23).repeat(1, 2),
    "repeat_few": case(lambda t, x: x.repeat(2), M23),
    "repeat_negative": case(lambda t, x: x.repeat(-1, 1), M23),
    "tile": case(lambda t, x: t.tile(x, (2,)), M23),
    "tile_method": case(lambda t, x: x.tile(2, 1, 2), M23),
    "trace": case(lambda t, x: t.trace(x), M34),
    "trace_method": case(lambda t, x: x.trace(), data(3, 3)),
    "trace_int": lambda t: t.trace(t.ones(2, 3, dtype=t.int32)),
    "trace_3d": case(lambda t, x: t.trace(x), T234),
    "trace_1d": case(lambda t, x: t.trace(x), A3),
}

V3 = np.array([0.3, -1.2, 2.5], dtype=np.float32)
D34 = (np.arange(12, dtype=np.float32).reshape(3, 4) * 0.37) % 1.1 - 0.5  # distinct values
D34[1, 2] += 3.0

SORTING = {
    "topk": case(lambda t, x: x.topk(2), D34),
    "topk_dim0_smallest": case(lambda t, x: t.topk(x, 2, dim=0, largest=False), D34),
    "topk_print": lambda t: repr(t.tensor([3.0, 1.0, 2.0]).topk(2)),
    "topk_fields": case(lambda t, x: (lambda r: (r.values, r.indices))(x.topk(3, 1)), D34),
    "topk_k_too_big": case(lambda t, x: x.topk(5), D34),
    "topk_int": lambda t: t.tensor([4, 1, 7]).topk(2),
    "sort": case(lambda t, x: x.sort(), D34),
    "sort_descending_dim0": case(lambda t, x: t.sort(x, dim=0, descending=True), D34),
    "sort_print": lambda t: repr(t.sort(t.tensor([3.0, 1.0, 2.0]))),
    "sort_axis": case(lambda t, x: x.sort(axis=0), D34),
    "argsort": case(lambda t, x: x.argsort(), D34),
    "argsort_descending": case(lambda t, x: t.argsort(x, dim=0, descending=True), D34),
    "kthvalue": case(lambda t, x: x.kthvalue(2), D34),
    "kthvalue_keepdim": case(lambda t, x: t.kthvalue(x, 3, 0, keepdim=True), D34),
    "kthvalue_print": lambda t: repr(t.tensor([3.0, 1.0, 2.0]).kthvalue(1)),
    "median": case(lambda t, x: x.median(), D34),
    "median_dim": case(lambda t, x: x.median(1), D34),
    "median_dim_keepdim": case(lambda t, x: t.median(x, dim=0, keepdim=True), D34),
    "median_print": lambda t: repr(t.tensor([3.0, 1.0, 2.0]).median(0)),
    "chunk": case(lambda t, x: x.chunk(2, 1), D34),
    "chunk_uneven": case(lambda t, x: t.chunk(x, 2), D34),
    "chunk_more_than_size": lambda t: len(t.arange(6.0).chunk(4)),
    "chunk_one_used": case(lambda t, x: x.chunk(3)[1] * 2, D34),
    "split_int": case(lambda t, x: x.split(3, dim=1), D34),
    "split_sizes": case(lambda t, x: t.split(x, [1, 2]), D34),
    "split_sizes_dim1": case(lambda t, x: x.split([3, 1], 1), D34),
    "split_sizes_bad": case(lambda t, x: x.split([1, 1]), D34),
    "split_view_inplace_refused": case(lambda t, x: (x * 1).split(1)[0].mul_(2), D34),
    "roll": case(lambda t, x: x.roll(1), D34),
    "roll_dim": case(lambda t, x: t.roll(x, -1, 1), D34),
    "roll_dims": case(lambda t, x: x.roll((1, 2), (0, 1)), D34),
    "roll_mismatch": case(lambda t, x: x.roll((1, 2), 0), D34),
    "one_hot": lambda t: t.nn.functional.one_hot(t.tensor([0, 2, 1])),
    "one_hot_classes": lambda t: t.nn.functional.one_hot(t.tensor([[0], [1]]), 4),
    "one_hot_float_refused": lambda t: t.nn.functional.one_hot(t.tensor([1.0])),
    "one_hot_negative": lambda t: t.nn.functional.one_hot(t.tensor([-1])),
    "one_hot_too_big": lambda t: t.nn.functional.one_hot(t.tensor([3]), 3),
    "outer": case(lambda t, x, y: t.outer(x, y), V3, data(4)),
    "outer_method": case(lambda t, x, y: x.outer(y), V3, V3),
    "ger": case(lambda t, x, y: t.ger(x, y), V3, data(2)),
    "outer_2d_refused": case(lambda t, x, y: t.outer(x, y), D34, V3),
    "diag_embed": case(lambda t, x: t.diag(x), V3),
    "diag_embed_offset": case(lambda t, x: x.diag(-1), V3),
    "diag_read": case(lambda t, x: t.diag(x), D34),
    "diag_read_offset": case(lambda t, x: x.diag(1), D34),
    "diag_read_below": case(lambda t, x: t.diag(x, -2), D34),
    "unsqueeze_": case(lambda t, x: (x * 1).unsqueeze_(0), D34),
    "unsqueeze_neg": case(lambda t, x: (x * 1).unsqueeze_(-1), D34),
    "squeeze_": case(lambda t, x: (x[None] * 1).squeeze_(), D34),
    "squeeze_dim": case(lambda t, x: (x[:, None] * 1).squeeze_(1), D34),
    "t_": case(lambda t, x: (x * 1).t_(), D34),
    "transpose_": case(lambda t, x: (x * 1).transpose_(0, 1), T234),
    "t_leaf_refused": case(lambda t, x: x.t_(), D34),
    "t_plain": lambda t: t.ones(2, 3).t_(),
    "fmod_": case(lambda t, x: (x * 1).fmod_(0.3), D34),
    "fmod_tensor_": case(lambda t, x, y: (x * 1).fmod_(y), D34, np.abs(data(4)) + 0.5),
    "remainder_": case(lambda t, x: (x * 1).remainder_(0.3), D34),
    "remainder_tensor_": case(lambda t, x, y: (x * 1).remainder_(y), D34, np.abs(data(4)) + 0.5),
}



def _seeded(build):
    """``build(torch, ...)`` after ``manual_seed(0)`` (a layer's init or a draw, as torch's)."""
    return lambda t, *xs: (t.manual_seed(0), build(t, *xs))[1]


def _mvn_log_prob(t, a, v):
    cov = a @ a.mT + t.eye(3)
    return t.distributions.MultivariateNormal(t.zeros(3), covariance_matrix=cov).log_prob(v)


P23 = data(2, 3, positive=True)
# the rows the recurrent and attention layers and the distributions use (issue 13)
LAYERS_AND_SPECIAL = {
    "unsafe_split": case(lambda t, x: t.unsafe_split(x * 2, 2, 1), M34),
    "unsafe_split_method_dim0": case(lambda t, x: x.unsafe_split(2), M34),
    "unsafe_chunk": case(lambda t, x: t.unsafe_chunk(x, 3, 1), M34),
    "unsafe_chunk_method_inplace_piece": case(lambda t, x: (x * 1).unsafe_chunk(2)[1].mul_(2),
                                              M34),
    "unsafe_split_list_refused": case(lambda t, x: t.unsafe_split(x, [1, 2]), M34),
    "unsafe_chunk_zero_refused": case(lambda t, x: t.unsafe_chunk(x, 0), M34),
    "baddbmm": case(lambda t, c, a, b: t.baddbmm(c, a, b), data(2, 3, 2), data(2, 3, 4),
                    data(2, 4, 2)),
    "baddbmm_broadcast_beta_alpha": case(
        lambda t, c, a, b: c.baddbmm(a, b, beta=0.5, alpha=2), data(3, 2), data(2, 3, 4),
        data(2, 4, 2)),
    "baddbmm_beta_0": case(lambda t, c, a, b: t.baddbmm(c, a, b, beta=0), data(2, 3, 2),
                           data(2, 3, 4), data(2, 4, 2)),
    "baddbmm_": case(lambda t, c, a, b: (c * 1).baddbmm_(a, b, alpha=0.5), data(2, 3, 2),
                     data(2, 3, 4), data(2, 4, 2)),
    "baddbmm_bad_batch2": case(lambda t, c, a, b: t.baddbmm(c, a, b), data(2, 3, 2),
                               data(2, 3, 4), data(2, 5, 2)),
    "baddbmm_dtypes_refused": case(lambda t, c, a, b: t.baddbmm(c.double(), a, b),
                                   data(2, 3, 2), data(2, 3, 4), data(2, 4, 2)),
    "safe_softmax": case(lambda t, x: t._safe_softmax(x, 1), M34),
    "safe_softmax_dead_row": case(
        lambda t, x: t._safe_softmax(x.masked_fill(t.tensor([[True], [False], [True]]),
                                                   float("-inf")), -1), M34),
    "sdpa_math_path": case(lambda t, q, k, v: t.nn.functional.scaled_dot_product_attention(
        q, k, v), data(2, 3, 4), data(2, 5, 4), data(2, 5, 4)),
    "sdpa_flash": case(lambda t, q, k, v: t.nn.functional.scaled_dot_product_attention(
        q, k, v, is_causal=True), data(1, 2, 3, 4), data(1, 2, 3, 4), data(1, 2, 3, 4)),
    "pack_padded_sequence": case(
        lambda t, x: t.nn.utils.rnn.pack_padded_sequence(x * 2, [3, 1], batch_first=True).data,
        data(2, 3, 4)),
    "pack_padded_sequence_private": case(
        lambda t, x: t._pack_padded_sequence(x, t.tensor([3, 2]), False), data(3, 2, 4)),
    "lstm_float32_fused": case(_seeded(lambda t, x: t.nn.LSTM(4, 3)(x)[0]), data(3, 2, 4)),
    "lgamma": case(lambda t, x: t.lgamma(x), P23),
    "lgamma_method_inplace": case(lambda t, x: (x * 1).lgamma_(), P23),
    "lgamma_int": lambda t: t.lgamma(t.tensor([1, 2, 5])),
    "digamma": case(lambda t, x: x.digamma(), P23),
    "digamma_": case(lambda t, x: (x + 0.5).digamma_(), P23),
    "polygamma_1": case(lambda t, x: t.polygamma(1, x), P23),
    "polygamma_3_method": case(lambda t, x: x.polygamma(3), P23),
    "polygamma_2_": case(lambda t, x: (x * 1).polygamma_(2), P23),
    "polygamma_negative_refused": case(lambda t, x: t.polygamma(-1, x), P23),
    "mvn_cholesky_solve_triangular": case(_mvn_log_prob, data(3, 3), data(3)),
    "standard_gamma": case(_seeded(lambda t, a: t._standard_gamma(a)),
                           np.array([0.3, 1.5, 4.0, 12.0], dtype=np.float64)),
    "standard_gamma_float32": case(_seeded(lambda t, a: t._standard_gamma(a * 2)), P23),
}

ALL = {f"pointwise-{k}": v for k, v in POINTWISE.items()}
ALL.update({f"layers-{k}": v for k, v in LAYERS_AND_SPECIAL.items()})
ALL.update({f"sorting-{k}": v for k, v in SORTING.items()})
ALL.update({f"select-{k}": v for k, v in SELECT.items()})
ALL.update({f"shape-{k}": v for k, v in SHAPE.items()})


@pytest.mark.parametrize("name", sorted(ALL))
def test_op_matches_torch(name):
    check(ALL[name])
