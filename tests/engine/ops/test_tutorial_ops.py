"""Differential tests for the ops tutorials use that the corpus missed (issue 14): einsum in
every subscript form, the bitwise and shift ops and operators, the in-place functions of
``torch`` (``torch.sin_(x)``), and the API sweep. Each case is compared whole with PyTorch
(values, dtypes, grads, the ``grad_fn`` graph, errors by type and first line)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.engine.differential import check
from tests.engine.ops.test_ops import case, data


def _einsum(equation, *arrays, listed=False):
    """``torch.einsum(equation, *leaves)`` (or with the leaves as one list), backpropagated."""
    if listed:
        return case(lambda t, *xs: t.einsum(equation, list(xs)), *arrays)
    return case(lambda t, *xs: t.einsum(equation, *xs), *arrays)


def ones(*shape, dtype="float32"):
    return lambda t: t.ones(*shape, dtype=getattr(t, dtype))


EINSUM = {
    "matmul": _einsum("ij,jk->ik", data(2, 3), data(3, 4)),
    "implicit": _einsum("ij,jk", data(2, 3), data(3, 4)),
    "implicit_sorted": _einsum("ba,ab", data(2, 3), data(3, 2)),
    "list": _einsum("ij,jk", data(2, 3), data(3, 4), listed=True),
    "batch": _einsum("bij,bjk->bik", data(2, 2, 3), data(2, 3, 4)),
    "batch_transposed": _einsum("bij,bkj->bik", data(2, 3, 4), data(2, 5, 4)),
    "attention": _einsum("bhqd,bhkd->bhqk", data(2, 2, 3, 4), data(2, 2, 5, 4)),
    "trace": _einsum("ii->", data(3, 3)),
    "trace_implicit": _einsum("ii", data(3, 3)),
    "diagonal": _einsum("ii->i", data(3, 3)),
    "diagonal_1x1": _einsum("ii->i", data(1, 1)),
    "diagonal_batched": _einsum("iij->j", data(3, 3, 2)),
    "diagonal_apart": _einsum("iji->j", data(2, 3, 2)),
    "outer": _einsum("i,j->ij", data(3), data(4)),
    "outer_4d": _einsum("ij,kl->ijkl", data(2, 1), data(1, 3)),
    "inner": _einsum("i,i->", data(3), data(3)),
    "inner_implicit": _einsum("i,i", data(3), data(3)),
    "ellipsis": _einsum("...ij,...jk->...ik", data(5, 2, 3), data(5, 3, 4)),
    "ellipsis_broadcast": _einsum("...ij,...jk->...ik", data(5, 2, 3), data(3, 4)),
    "ellipsis_summed": _einsum("...i->...", data(2, 3, 4)),
    "transpose": _einsum("ij->ji", data(2, 3)),
    "sum_all": _einsum("ij->", data(2, 3)),
    "sum_rows": _einsum("ij->j", data(2, 3)),
    "matvec": _einsum("ij,j->i", data(2, 3), data(3)),
    "hadamard": _einsum("ij,ij->ij", data(2, 3), data(2, 3)),
    "broadcast_one": _einsum("ij,ij->", data(2, 3), data(1, 3)),
    "three": _einsum("bn,anm,bm->ba", data(2, 3), data(4, 3, 5), data(2, 5)),
    "chain": _einsum("ij,jk,kl->il", data(2, 3), data(3, 4), data(4, 5)),
    "spaces": _einsum("i j , j k -> i k", data(2, 3), data(3, 4)),
    "capitals": _einsum("Ab,bC->AC", data(2, 3), data(3, 4)),
    "int": lambda t: t.einsum("ij,jk->ik", t.arange(6).reshape(2, 3), t.arange(12).reshape(3, 4)),
    "int_sum": lambda t: t.einsum("ij->j", t.arange(6).reshape(2, 3)),
    "mixed_mul": lambda t: t.einsum("i,j->ij", t.ones(2, dtype=t.int64), t.ones(3)),
    "float64": lambda t: t.einsum("ij,jk->ik", t.ones(2, 3, dtype=t.float64),
                                  t.ones(3, 4, dtype=t.float64)),
    "sublists": lambda t: t.einsum(t.ones(2, 3), [0, 1], t.ones(3, 4), [1, 2], [0, 2]),
    "sublists_implicit": lambda t: t.einsum(t.ones(2, 3), [0, 1], t.ones(3, 4), [1, 2]),
    "sublist_ellipsis": lambda t: t.einsum(t.ones(2, 3), [Ellipsis, 1], [1]),
    # errors, as PyTorch words them
    "too_few": lambda t: t.einsum("ij,jk->ik", t.ones(2, 3)),
    "too_many": lambda t: t.einsum("ij", t.ones(2, 3), t.ones(2, 3)),
    "size_mismatch": lambda t: t.einsum("ij,jk->ik", t.ones(2, 3), t.ones(2, 3)),
    "rank_mismatch": lambda t: t.einsum("ijk", t.ones(2, 3)),
    "unknown_output": lambda t: t.einsum("ij->k", t.ones(2, 3)),
    "repeated_output": lambda t: t.einsum("ij->ii", t.ones(2, 3)),
    "bad_subscript": lambda t: t.einsum("1j", t.ones(2, 3)),
    "bad_output_subscript": lambda t: t.einsum("ij->i->j", t.ones(2, 3)),
    "broadcast_mismatch": lambda t: t.einsum("i,i", t.ones(2), t.ones(3)),
    "diagonal_mismatch": lambda t: t.einsum("ii", t.ones(2, 3)),
    "ellipsis_mismatch": lambda t: t.einsum("...ij,...jk", t.ones(2, 2, 3), t.ones(3, 3, 4)),
    "lone_dot": lambda t: t.einsum("..i", t.ones(2, 3)),
    "output_ellipsis_lone_dot": lambda t: t.einsum("...ij->.", t.ones(2, 3)),
    "no_equation": lambda t: t.einsum(t.ones(2)),
    "no_operands": lambda t: t.einsum("ij,jk->ik"),
    "empty_list": lambda t: t.einsum("ij,jk->ik", []),
    "short_list": lambda t: t.einsum("ij,jk->ik", [t.ones(2, 3)]),
    "not_a_tensor": lambda t: t.einsum("ij,jk->ik", t.ones(2, 3), 3),
    "equation_not_str": lambda t: t.einsum(5, t.ones(2)),
    "dtype_mismatch": lambda t: t.einsum("ij,jk->ik", t.ones(2, 3), t.ones(3, 4, dtype=t.int64)),
    "bool": lambda t: t.einsum("ij,ij->i", t.ones(2, 3, dtype=t.bool), t.ones(2, 3, dtype=t.bool)),
    "sublist_range": lambda t: t.einsum(t.ones(2, 3), [0, 60]),
    "diagonal_fn": case(lambda t, x: t.diagonal(x, 1, -1, 0), data(2, 3, 4)),
    "diagonal_method": case(lambda t, x: x.diagonal(), data(3, 4)),
    "diagonal_offset_past": case(lambda t, x: x.diagonal(offset=10), data(3, 4)),
    "diagonal_negative": case(lambda t, x: x.diagonal(-1, 1, 2), data(2, 3, 4)),
    "diagonal_inplace": case(lambda t, x: (x * 1).diagonal().mul_(2), data(3, 3)),
    "diagonal_same_dims": lambda t: t.ones(2, 3).diagonal(0, 1, 1),
    "movedim": case(lambda t, x: t.movedim(x, [0, 1], [-1, 0]), data(2, 3, 4)),
    "movedim_noop": case(lambda t, x: x.movedim(0, 0), data(2, 3)),
    "moveaxis": case(lambda t, x: t.moveaxis(x, 0, -1), data(2, 3, 4)),
    "movedim_counts": lambda t: t.ones(2, 3, 4).movedim((0, 1), (1,)),
    "movedim_repeated": lambda t: t.ones(2, 3, 4).movedim((0, 0), (1, 2)),
    "movedim_repeated_destination": lambda t: t.ones(2, 3, 4).movedim((0, 1), (2, 2)),
    "movedim_range": lambda t: t.ones(2, 3, 4).movedim(0, 5),
}


def _bits(expression):
    """An expression over small integer, bool and float tensors, evaluated in torch's names."""

    def snippet(torch):
        names = {
            "torch": torch, "a": torch.tensor([1, 2, 3]), "b": torch.tensor([3, 1, 2]),
            "t": torch.tensor([True, False, True]), "f": torch.tensor([1.0, 2.0]),
            "u8": torch.tensor([1, 200], dtype=torch.uint8),
            "i32": torch.tensor([1, -2], dtype=torch.int32),
            "i8": torch.tensor([1, 2], dtype=torch.int8),
        }
        *statements, last = expression.split("; ")
        for s in statements:
            exec(s, names)
        return eval(last, names), names.get("x")

    return snippet


BITWISE = {e: _bits(e) for e in (
    "a & b", "a | b", "a ^ b", "~a", "a << 1", "a >> 1", "1 << a", "8 >> a", "a & 1", "1 & a",
    "3 | a", "a ^ 5", "t & t", "t | True", "t ^ t", "~t", "t & a", "t << 1", "t >> 1", "t & 2",
    "t | 1", "a & True", "~f", "f & f", "f & 1", "a & 1.5", "a << 1.5", "f << 1", "t ^ 1.0",
    "a << -1", "a >> 70", "a << 64", "u8 << 1", "u8 >> 1", "~u8", "u8 & -1", "u8 | 300",
    "i8 << 7", "i32 & a", "i32 ^ 3", "torch.tensor([-8]) >> 1",
    "torch.bitwise_right_shift(torch.tensor([-8]), 100)",
    "torch.bitwise_left_shift(torch.tensor([1]), torch.tensor([-1]))",
    "torch.bitwise_and(a, b)", "torch.bitwise_or(a, 1)", "torch.bitwise_xor(a, b)",
    "torch.bitwise_not(a)", "torch.bitwise_not(t)", "torch.bitwise_left_shift(a, 2)",
    "torch.bitwise_right_shift(a, b)", "a.bitwise_and(b)", "a.bitwise_not()",
    "torch.bitwise_and(1, a)", "torch.bitwise_and(f, f)", "torch.bitwise_not(f)",
    "torch.bitwise_left_shift(f, 1)", "torch.bitwise_left_shift(2, a)", "a.__rlshift__(2)",
    "torch.tensor(5) & torch.tensor([1, 3])", "a & b.view(3, 1)", "a & [1, 2, 3]",
    "a.__and__(1.5)", "a & torch.tensor([1.0, 2.0, 3.0])",
    "torch.bitwise_and(a, b, out=torch.empty(3, dtype=torch.int64))",
    "torch.logical_xor(a, b)", "torch.logical_xor(f, f)", "a.logical_xor(t)",
    "(f > 1) & (f < 3)", "(f > 1) | ~(f < 3)",
    "x = a.clone(); x &= b; x", "x = a.clone(); x |= 1; x", "x = a.clone(); x ^= b; x",
    "x = a.clone(); x <<= 1; x", "x = a.clone(); x >>= 1; x",
    "x = a.clone(); x.bitwise_xor_(b); x", "x = a.clone(); x.bitwise_not_(); x",
    "x = a.clone(); x.bitwise_and_(3); x", "x = a.clone(); x.bitwise_or_(b); x",
    "x = a.clone(); x.bitwise_right_shift_(1); x",
    "x = t.clone(); x &= a; x", "x = a.clone(); x &= t; x", "x = f.clone(); x &= 1; x",
    "x = a.clone(); x.bitwise_left_shift_(1); x", "x = a.clone(); x.logical_xor_(b); x",
    "x = a.clone(); x.logical_and_(b); x", "x = a.clone(); x.logical_or_(b); x",
    "x = f.clone(); x.logical_not_(); x", "x = a.clone(); x.__iand__(1.5)",
    "x = a.clone(); x.__iand__(b) is x", "x = a.clone(); x[0] &= 0; x",
    "x = a.clone(); x &= [1]", "x = u8.clone(); x |= 300; x",
)}


def _fn_inplace(name, *args, x=None):
    """``torch.<name>(y, *args)`` on a non-leaf ``y``: the in-place function of ``torch``."""
    return case(lambda t, leaf: getattr(t, name)(leaf * 1, *args),
                data(3) if x is None else x)


POS3 = np.abs(data(3)) + 0.5
TORCH_INPLACE = {
    **{n: _fn_inplace(n) for n in ("sin_", "cos_", "exp_", "relu_", "sigmoid_", "tanh_",
                                   "abs_", "neg_", "zero_", "ceil_", "floor_", "round_",
                                   "trunc_", "fix_", "expm1_", "atan_", "arctan_", "sinh_",
                                   "cosh_")},
    **{n: _fn_inplace(n, x=POS3) for n in ("sqrt_", "log_", "log10_", "log2_", "log1p_",
                                           "reciprocal_")},
    **{n: _fn_inplace(n, x=POS3 / 4) for n in ("asin_", "acos_", "arcsin_", "arccos_")},
    "fill_": _fn_inplace("fill_", 2.5),
    "clamp_": _fn_inplace("clamp_", -0.5, 0.5),
    "clamp_kw": case(lambda t, x: t.clamp_(x * 1, min=0.0), data(3)),
    "clip_": _fn_inplace("clip_", None, 0.1),
    "square_": _fn_inplace("square_"),
    "square_method": case(lambda t, x: (x * 1).square_(), data(3)),
    "arcsinh_": _fn_inplace("arcsinh_"),
    "arctanh_no_grad": lambda t: t.arctanh_(t.tensor([0.5])),
    "detach_": case(lambda t, x: (t.detach_(x * 1), x), data(3), backward=False),
    "leaf": case(lambda t, x: t.sin_(x), data(3)),
    "not_a_tensor": lambda t: t.sin_(1.0),
    "int": lambda t: t.zero_(t.tensor([1, 2])),
}

A3 = data(3)
M23 = data(2, 3)
M34 = data(3, 4)
N34 = data(3, 4)
U34 = (np.abs(data(3, 4)) % 0.9 + 0.05).astype(np.float32)  # inside (0, 1)
T234 = data(2, 3, 4)
NAN4 = np.array([1.0, np.nan, np.inf, -np.inf], dtype=np.float32)
ZEROS4 = np.array([2.0, 0.0, 3.0, 0.0], dtype=np.float32)
TIES5 = np.array([[1.0, 2, 2, 3, 3], [5, 5, 1, 1, 0]], dtype=np.float32)


def _pointwise(name, x):
    return {name: case(lambda t, a: getattr(t, name)(a), x),
            f"{name}_method": case(lambda t, a: getattr(a, name)(), x),
            f"{name}_": case(lambda t, a: getattr(a * 1, name + "_")(), x)}


POINTWISE = {}
for _n, _x in (("tan", A3), ("asinh", A3), ("acosh", np.abs(A3) + 1.5), ("atanh", A3 / 4),
               ("rsqrt", np.abs(A3) + 0.5), ("exp2", A3), ("erf", A3), ("erfc", A3),
               ("erfinv", A3 / 4), ("deg2rad", A3), ("rad2deg", A3), ("sinc", ZEROS4),
               ("frac", A3 * 3)):
    POINTWISE.update(_pointwise(_n, _x))
# sgn: PyTorch's gradient is a ZeroTensor, which has no numpy form to compare
POINTWISE.update({"sgn": case(lambda t, x: t.sgn(x), ZEROS4, backward=False),
                  "sgn_method": case(lambda t, x: x.sgn(), ZEROS4, backward=False),
                  "sgn_": case(lambda t, x: (x * 1).sgn_(), ZEROS4, backward=False)})
POINTWISE.update({
    "arcsinh": case(lambda t, x: t.arcsinh(x), A3),
    "arccosh_method": case(lambda t, x: x.arccosh(), np.abs(A3) + 1.5),
    "arctanh": case(lambda t, x: t.arctanh(x), A3 / 4),
    "tan_int": lambda t: t.tan(t.tensor([1, 2])),
    "erfinv_edges": lambda t: t.erfinv(t.tensor([0.5, 1.0, -1.0, 1.5, 0.0])),
    "frac_int": lambda t: t.frac(t.tensor([1, 2])),
    "sgn_int": lambda t: t.sgn(t.tensor([-1, 0, 2])),
    "logit": case(lambda t, x: t.logit(x), U34),
    "logit_eps": case(lambda t, x: x.logit(eps=0.2), U34),
    "logit_": case(lambda t, x: (x * 1).logit_(0.1), U34),
    "logit_int": lambda t: t.logit(t.tensor([1, 0])),
    "nan_to_num": case(lambda t, x: t.nan_to_num(x), NAN4),
    "nan_to_num_values": case(lambda t, x: x.nan_to_num(nan=2.0, posinf=1.0), NAN4),
    "nan_to_num_": case(lambda t, x: (x * 1).nan_to_num_(neginf=-7.0), NAN4),
    "nan_to_num_f64": lambda t: t.nan_to_num(t.tensor([float("inf")], dtype=t.float64)),
    "hypot": case(lambda t, x, y: t.hypot(x, y), M34, N34),
    "hypot_broadcast": case(lambda t, x, y: x.hypot(y), M34, data(4)),
    "hypot_": case(lambda t, x, y: (x * 1).hypot_(y), M34, N34),
    "logaddexp": case(lambda t, x, y: t.logaddexp(x, y), M34, N34),
    "logaddexp_inf": lambda t: t.logaddexp(t.tensor([float("inf"), -float("inf")]),
                                           t.tensor([float("inf"), -float("inf")])),
    "logaddexp2": case(lambda t, x, y: x.logaddexp2(y), M34, N34),
    "xlogy": case(lambda t, x, y: t.xlogy(x, y), M34, U34),
    "xlogy_zeros": lambda t: t.xlogy(t.tensor([0.0, 1.0]), t.tensor([0.0, float("nan")])),
    "xlogy_number": lambda t: t.xlogy(2, t.tensor([3.0])),
    "xlogy_": case(lambda t, x, y: (x * 1).xlogy_(y), M34, U34),
    "fmax": case(lambda t, x, y: t.fmax(x, y), NAN4, ZEROS4),
    "fmin": case(lambda t, x, y: x.fmin(y), NAN4, ZEROS4),
    "copysign": case(lambda t, x, y: t.copysign(x, y), M34, N34),
    "copysign_number": case(lambda t, x: x.copysign(-1.0), ZEROS4),
    "heaviside": lambda t: t.heaviside(t.tensor([-1.0, 0, 2]), t.tensor(0.5)),
    "heaviside_number": lambda t: t.heaviside(t.tensor([-1.0, 0, 2]), 0.5),
    "heaviside_grad": case(lambda t, x: t.heaviside(x, t.tensor(0.5)), A3, backward=False),
    "lerp": case(lambda t, x, y: t.lerp(x, y, 0.3), M34, N34),
    "lerp_tensor": case(lambda t, x, y, w: x.lerp(y, w), M34, N34, U34),
    "lerp_": case(lambda t, x, y: (x * 1).lerp_(y, 0.7), M34, N34),
    "lerp_int": lambda t: t.lerp(t.tensor([1, 2]), t.tensor([3, 4]), 0.5),
    "clamp_min": case(lambda t, x: t.clamp_min(x, 0.1), M34),
    "clamp_max": case(lambda t, x: x.clamp_max(-0.1), M34),
    "clamp_min_int": lambda t: t.clamp_min(t.tensor([1, 5]), 3),
    "clamp_min_": case(lambda t, x: (x * 1).clamp_min_(0.0), M34),
    "clamp_max_fn_": case(lambda t, x: t.clamp_max_(x * 1, 0.0), M34),
    "addcmul": case(lambda t, x, a, b: t.addcmul(x, a, b, value=0.5), M34, N34, U34),
    "addcmul_": case(lambda t, x, a, b: (x * 1).addcmul_(a, b), M34, N34, U34),
    "addcdiv": case(lambda t, x, a, b: x.addcdiv(a, b, value=2), M34, N34, U34),
    "addcdiv_": case(lambda t, x, a, b: (x * 1).addcdiv_(a, b, value=-1), M34, N34, U34),
    "asinh_no_grad": lambda t: t.tensor([0.5]).asinh_(),
    "atanh_fn_": case(lambda t, x: t.atanh_(x * 1), A3 / 4),
    "copysign_": case(lambda t, x: (x * 1).copysign_(-2.0), A3),
    "copysign_tensor_": case(lambda t, x, y: (x * 1).copysign_(y), A3, data(3)),
    "addcdiv_int": lambda t: t.addcdiv(t.ones(2, dtype=t.int64), t.ones(2, dtype=t.int64),
                                       t.ones(2, dtype=t.int64)),
    "positive": case(lambda t, x: t.positive(x), A3),
    "positive_bool": lambda t: t.positive(t.tensor([True])),
    "float_power": case(lambda t, x: t.float_power(x, 2), A3),
    "float_power_tensor": case(lambda t, x, y: x.float_power(y), U34, N34),
})

SCANS = {
    "cumprod": case(lambda t, x: t.cumprod(x, 1), M34),
    "cumprod_zeros": case(lambda t, x: x.cumprod(0), ZEROS4),
    "cumprod_dtype": case(lambda t, x: t.cumprod(x, dim=0, dtype=t.float64), A3),
    "cumprod_int": lambda t: t.cumprod(t.tensor([1, 2, 3]), 0),
    "cumprod_bad_dim": lambda t: t.cumprod(t.ones(2, 2), 2),
    "cumprod_": case(lambda t, x: (x * 1).cumprod_(1), M34),
    "logcumsumexp": case(lambda t, x: t.logcumsumexp(x, 1), M34),
    "logcumsumexp_int": lambda t: t.logcumsumexp(t.tensor([1, 2]), 0),
    "logsumexp": case(lambda t, x: t.logsumexp(x, 1), M34),
    "logsumexp_keepdim": case(lambda t, x: x.logsumexp(0, keepdim=True), M34),
    "logsumexp_dims": case(lambda t, x: t.logsumexp(x, (0, 2)), T234),
    "logsumexp_int": lambda t: t.logsumexp(t.tensor([1, 2]), 0),
    "logsumexp_inf": lambda t: t.logsumexp(t.tensor([-float("inf"), -float("inf")]), 0),
    "nansum": case(lambda t, x: t.nansum(x), NAN4[:2]),
    "nansum_dim": case(lambda t, x: x.nansum(1, keepdim=True), M34),
    "nanmean": case(lambda t, x: t.nanmean(x), NAN4[:2]),
    "nanmean_dim": case(lambda t, x: x.nanmean(dim=0), M34),
    "nanmean_int": lambda t: t.nanmean(t.tensor([1, 2])),
    "cummax": case(lambda t, x: t.cummax(x, 0), np.array([1.0, 3, 2, 3, 0], np.float32)),
    "cummin": case(lambda t, x: x.cummin(1), M34),
    "cummax_dim": case(lambda t, x: x.cummax(dim=-1), T234),
    "mode": case(lambda t, x: t.mode(x, 1), TIES5),
    "mode_keepdim": case(lambda t, x: x.mode(0, keepdim=True), TIES5),
    "mode_int": lambda t: t.mode(t.tensor([1, 2, 2, 1])),
    "var_mean": case(lambda t, x: t.var_mean(x), M34),
    "var_mean_dim": case(lambda t, x: t.var_mean(x, 1, keepdim=True), M34),
    "std_mean": case(lambda t, x: t.std_mean(x, dim=0, correction=0), M34),
    "std_mean_list": case(lambda t, x: t.std_mean(x, [0, 1]), M34),
    "var_mean_only_mean": case(lambda t, x: t.var_mean(x, 1)[1], M34),
    "std_mean_only_std": case(lambda t, x: t.std_mean(x)[0], M34),
    "var_mean_int": lambda t: t.var_mean(t.tensor([3, 1, 2])),
    "std_mean_int": lambda t: t.std_mean(t.tensor([3, 1, 2])),
    "aminmax": case(lambda t, x: t.aminmax(x), M34),
    "aminmax_dim": case(lambda t, x: x.aminmax(dim=1, keepdim=True), M34),
    "aminmax_ties": case(lambda t, x: t.aminmax(x), np.array([1.0, 3, 3, 1], np.float32)),
    "aminmax_max_only": case(lambda t, x: t.aminmax(x, dim=0).max, M34),
    "aminmax_int": lambda t: t.aminmax(t.tensor([3, 1, 2])),
    "aminmax_empty": lambda t: t.aminmax(t.ones(0)),
    "count_nonzero": lambda t: t.count_nonzero(t.tensor([[0, 1], [2, 0.0]])),
    "count_nonzero_dim": lambda t: t.tensor([[0, 1], [2, 0.0]]).count_nonzero(dim=0),
    "count_nonzero_dims": lambda t: t.count_nonzero(t.tensor([[0, 1], [2, 0.0]]), dim=(0, 1)),
    "nonzero": lambda t: t.nonzero(t.tensor([[0, 1], [2, 0.0]])),
    "nonzero_tuple": lambda t: t.tensor([[0, 1], [2, 0.0]]).nonzero(as_tuple=True),
    "nonzero_scalar": lambda t: t.nonzero(t.tensor(3.0)),
    "argwhere": lambda t: t.argwhere(t.tensor([0, 2])),
    "dist": case(lambda t, x, y: t.dist(x, y), M34, N34),
    "dist_p3": case(lambda t, x, y: x.dist(y, 3), M34, N34),
    "dist_p1": case(lambda t, x, y: x.dist(y, p=1), M34, N34),
}

BINS = {
    "signbit": lambda t: t.signbit(t.tensor([-1.0, 0.0, -0.0, 2.0])),
    "isneginf": lambda t: t.tensor(NAN4).isneginf(),
    "isposinf": lambda t: t.isposinf(t.tensor(NAN4)),
    "isreal": lambda t: t.isreal(t.tensor([1.0, 2.0])),
    "bincount": lambda t: t.bincount(t.tensor([1, 1, 3])),
    "bincount_minlength": lambda t: t.tensor([1, 1, 3]).bincount(minlength=6),
    "bincount_weights": lambda t: t.bincount(t.tensor([1, 1, 3]), t.tensor([0.5, 1.0, 2.0])),
    "bincount_weights64": lambda t: t.bincount(t.tensor([1, 1, 3]), weights=t.tensor(
        [0.5, 1.0, 2.0], dtype=t.float64)),
    "bincount_negative": lambda t: t.bincount(t.tensor([-1])),
    "bincount_2d": lambda t: t.bincount(t.tensor([[1]])),
    "bincount_float": lambda t: t.bincount(t.tensor([1.0])),
    "bincount_empty": lambda t: t.bincount(t.tensor([], dtype=t.long)),
    "histc": lambda t: t.histc(t.tensor([1.0, 2, 1]), bins=4, min=0, max=3),
    "histc_default": lambda t: t.tensor([1.0, 2, 1, 7]).histc(bins=5),
    "histc_int": lambda t: t.histc(t.tensor([1, 2, 1])),
    "histc_bad_range": lambda t: t.histc(t.tensor([1.0, 2, 1]), bins=3, min=2, max=1),
    "unique": lambda t: t.unique(t.tensor([3, 1, 3, 2])),
    "unique_all": lambda t: t.unique(t.tensor([3, 1, 3, 2]), return_inverse=True,
                                     return_counts=True),
    "unique_unsorted": lambda t: t.unique(t.tensor([3, 1, 3, 2]), sorted=False),
    "unique_dim": lambda t: t.unique(t.tensor([[1, 2], [1, 2], [0, 1]]), dim=0),
    "unique_method": lambda t: t.tensor([3.0, 1.0, 3.0]).unique(return_counts=True),
    "searchsorted": lambda t: t.searchsorted(t.tensor([1.0, 3, 5]), t.tensor([2.0, 6, 3])),
    "searchsorted_right": lambda t: t.searchsorted(t.tensor([1.0, 3, 5]), t.tensor([3.0]),
                                                   right=True),
    "searchsorted_side": lambda t: t.searchsorted(t.tensor([1.0, 3, 5]), t.tensor([3.0]),
                                                  side="right"),
    "searchsorted_number": lambda t: t.searchsorted(t.tensor([1.0, 3, 5]), 3.0),
    "searchsorted_int32": lambda t: t.searchsorted(t.tensor([1.0, 3, 5]), t.tensor([3.0]),
                                                   out_int32=True),
    "searchsorted_rows": lambda t: t.searchsorted(t.tensor([[1, 3, 5], [2, 4, 6]]),
                                                  t.tensor([[2], [5]])),
    "bucketize": lambda t: t.bucketize(t.tensor([2.0, 6, 3]), t.tensor([1.0, 3, 5])),
    "bucketize_right": lambda t: t.bucketize(t.tensor([2.0, 6, 3]), t.tensor([1.0, 3, 5]),
                                             right=True),
}

MATRIX = {
    "rot90": case(lambda t, x: t.rot90(x), M34),
    "rot90_2": case(lambda t, x: x.rot90(2), M34),
    "rot90_negative": case(lambda t, x: x.rot90(-1, [1, 2]), T234),
    "rot90_same_dims": lambda t: t.rot90(t.ones(3, 4), 1, [0, 0]),
    "rot90_one_dim": lambda t: t.rot90(t.ones(3, 4), 1, [0]),
    "rot90_1d": lambda t: t.rot90(t.ones(3), 1, [0, 1]),
    "cross": case(lambda t, x, y: t.cross(x, y, dim=1), data(2, 3), data(2, 3)),
    "cross_default": case(lambda t, x, y: x.cross(y), data(3, 2), data(3, 2)),
    "cross_ranks": case(lambda t, x, y: t.cross(x, y, dim=-1), data(2, 3), data(3)),
    "cross_broadcast": case(lambda t, x, y: t.cross(x, y, dim=-1), data(2, 3), data(1, 3)),
    "cross_no_3": lambda t: t.cross(t.ones(2, 4), t.ones(2, 4)),
    "cross_bad_dim": lambda t: t.cross(t.ones(2, 3), t.ones(2, 3), dim=0),
    "linalg_cross": case(lambda t, x, y: t.linalg.cross(x, y), data(2, 3), data(2, 3)),
    "linalg_cross_dim": lambda t: t.linalg.cross(t.ones(2, 3), t.ones(2, 3), dim=0),
    "linalg_matmul": case(lambda t, x, y: t.linalg.matmul(x, y), M23, M34),
    "linalg_vector_norm": case(lambda t, x: t.linalg.vector_norm(x), M34),
    "linalg_vector_norm_dim": case(lambda t, x: t.linalg.vector_norm(x, 1, dim=1), M34),
    "linalg_norm": case(lambda t, x: t.linalg.norm(x), A3),
    "block_diag": case(lambda t, x, y: t.block_diag(x, y), M23, A3),
    "block_diag_mixed": lambda t: t.block_diag(t.ones(2, 2), t.tensor([1, 2]), t.tensor(5)),
    "block_diag_none": lambda t: t.block_diag(),
    "cdist": case(lambda t, x, y: t.cdist(x, y), M34, data(2, 4)),
    "cdist_p1": case(lambda t, x, y: t.cdist(x, y, p=1), M34, data(2, 4)),
    "cdist_batch": case(lambda t, x, y: t.cdist(x, y), T234, data(2, 2, 4)),
    "cdist_columns": lambda t: t.cdist(t.ones(2, 3), t.ones(4, 2)),
    "diag_embed": case(lambda t, x: t.diag_embed(x), M23),
    "diag_embed_offset": case(lambda t, x: x.diag_embed(1, 0, 2), M23),
    "diag_embed_negative": case(lambda t, x: t.diag_embed(x, -1, dim1=-1, dim2=0), M23),
    "diagflat": case(lambda t, x: t.diagflat(x, -1), data(2, 2)),
    "diagflat_method": case(lambda t, x: x.diagflat(), A3),
    "index_add": case(lambda t, x, s: t.index_add(x, 0, t.tensor([0, 2]), s, alpha=2), M34,
                      data(2, 4)),
    "index_add_repeat": case(lambda t, x, s: x.index_add(1, t.tensor([1, 1]), s), M34,
                             data(3, 2)),
    "index_add_": case(lambda t, x, s: (x * 1).index_add_(0, t.tensor([1]), s), M34,
                       data(1, 4)),
    "index_fill": case(lambda t, x: x.index_fill(1, t.tensor([0, 2]), -1.0), M34),
    "index_fill_": case(lambda t, x: (x * 1).index_fill_(0, t.tensor([1]), 5), M34),
}

SHAPES = {
    "narrow": case(lambda t, x: t.narrow(x, 1, 1, 2), M34),
    "narrow_negative": case(lambda t, x: x.narrow(-1, -2, 2), M34),
    "narrow_too_long": lambda t: t.ones(3, 4).narrow(1, 1, 5),
    "narrow_bad_start": lambda t: t.ones(3, 4).narrow(1, 5, 0),
    "unflatten": case(lambda t, x: x.unflatten(1, (2, 2)), M34),
    "unflatten_infer": case(lambda t, x: t.unflatten(x, -1, (2, -1)), M34),
    "unflatten_bad": lambda t: t.ones(3, 4).unflatten(1, (3, 2)),
    "ravel": case(lambda t, x: t.ravel(x.t()), M34),
    "ravel_method": case(lambda t, x: x.ravel(), M34),
    "fliplr": case(lambda t, x: t.fliplr(x), M34),
    "flipud": case(lambda t, x: x.flipud(), M34),
    "fliplr_1d": lambda t: t.fliplr(t.ones(3)),
    "swapdims": case(lambda t, x: t.swapdims(x, 0, 2), T234),
    "swapdims_method": case(lambda t, x: x.swapdims(0, 1), M34),
    "broadcast_to": case(lambda t, x: t.broadcast_to(x, (2, 3)), A3),
    "broadcast_to_method": case(lambda t, x: x.broadcast_to((2, 3, 4)), M34),
    "broadcast_tensors": case(lambda t, x, y: t.broadcast_tensors(x, y), M34, data(4)),
    "broadcast_shapes": lambda t: t.broadcast_shapes((2, 1), (3,)),
    "broadcast_shapes_bad": lambda t: t.broadcast_shapes((2,), (3,)),
    "atleast_1d": case(lambda t, x: t.atleast_1d(x.sum()), A3),
    "atleast_2d": case(lambda t, x: t.atleast_2d(x), A3),
    "atleast_3d": case(lambda t, x: (t.atleast_3d(x), t.atleast_3d(x[0]), t.atleast_3d(
        x.sum())), M34),
    "atleast_many": case(lambda t, x, y: t.atleast_2d(x, y), A3, M34),
    "atleast_list": case(lambda t, x: t.atleast_1d([x]), A3),
    "hstack": case(lambda t, x, y: t.hstack([x, y]), M34, N34),
    "hstack_1d": case(lambda t, x: t.hstack((x, x)), A3),
    "vstack": case(lambda t, x, y: t.vstack([x, y]), A3, data(3)),
    "row_stack": case(lambda t, x, y: t.row_stack([x, y]), M34, N34),
    "dstack": case(lambda t, x, y: t.dstack([x, y]), M34, N34),
    "column_stack": case(lambda t, x, y: t.column_stack([x, y]), A3, data(3, 2)),
    "tensor_split": case(lambda t, x: t.tensor_split(x, 3, 1), M34),
    "tensor_split_indices": case(lambda t, x: x.tensor_split([1, 3], dim=1), M34),
    "tensor_split_past_end": case(lambda t, x: x.tensor_split([1, 6], dim=1), M34),
    "hsplit": case(lambda t, x: t.hsplit(x, 2), M34),
    "hsplit_1d": case(lambda t, x: x.hsplit([1]), A3),
    "hsplit_uneven": lambda t: t.hsplit(t.ones(3, 4), 3),
    "vsplit": case(lambda t, x: t.vsplit(x, [1]), M34),
    "vsplit_1d": lambda t: t.vsplit(t.ones(4), 2),
    "dsplit": case(lambda t, x: t.dsplit(x, 2), T234),
    "diff": case(lambda t, x: t.diff(x), M34),
    "diff_dim": case(lambda t, x: x.diff(dim=0), M34),
    "diff_n2": case(lambda t, x: t.diff(x, n=2), A3),
    "diff_prepend": case(lambda t, x, p: t.diff(x, prepend=p[:1]), A3, data(3)),
    "diff_append": case(lambda t, x, p: x.diff(append=p), M34, data(3, 1)),
    "diff_bool": lambda t: t.diff(t.tensor([True, False, False])),
    "diff_0d": lambda t: t.diff(t.tensor(1.0)),
    "meshgrid": case(lambda t, x, y: t.meshgrid(x, y, indexing="ij"), A3, data(4)),
    "meshgrid_xy": case(lambda t, x, y: t.meshgrid(x, y, indexing="xy"), A3, data(4)),
    "meshgrid_list": case(lambda t, x, y: t.meshgrid([x, y], indexing="ij"), A3, data(4)),
    "meshgrid_default": case(lambda t, x, y: t.meshgrid(x, y), A3, data(4)),
    "meshgrid_bad_indexing": lambda t: t.meshgrid(t.ones(2), indexing="yx"),
    "cartesian_prod": case(lambda t, x, y: t.cartesian_prod(x, y), A3, data(4)),
    "cartesian_prod_one": case(lambda t, x: t.cartesian_prod(x), A3),
    "take_along_dim": case(lambda t, x: t.take_along_dim(x, t.tensor([[0], [1], [2]]), 1), M34),
    "take_along_dim_flat": case(lambda t, x: x.take_along_dim(t.tensor([0, 5, 11])), M34),
    "take_along_dim_broadcast": case(
        lambda t, x: t.take_along_dim(x, t.tensor([[3, 0]]), dim=1), M34),
    "take_along_dim_argmax": case(lambda t, x: t.take_along_dim(x, x.argmax(1, keepdim=True),
                                                                1), M34),
    "kron": case(lambda t, x, y: t.kron(x, y), M23, data(2, 2)),
    "kron_mixed": case(lambda t, x, y: x.kron(y), A3, data(2, 2)),
    "tensordot": case(lambda t, x, y: t.tensordot(x, y.t(), 1), M34, N34),
    "tensordot_full": case(lambda t, x, y: t.tensordot(x, y, dims=([0, 1], [0, 1])), M34, N34),
    "tensordot_lists": case(lambda t, a, b: t.tensordot(a, b, dims=([1, 2], [1, 0])), T234,
                            data(4, 3, 5)),
    "tensordot_int": case(lambda t, a, b: t.tensordot(a, b, dims=1), T234, data(4, 3, 5)),
    "tensordot_outer": case(lambda t, x, y: t.tensordot(x, y, dims=0), A3, data(2)),
    "tensordot_1d": case(lambda t, x, y: t.tensordot(x, y, dims=1), A3, data(3)),
    "tensordot_broadcast": case(lambda t, x, y: t.tensordot(x, y, dims=([1], [0])), M34,
                                data(1, 2)),
    "tensordot_mismatch": lambda t: t.tensordot(t.ones(2, 3), t.ones(4, 5), dims=1),
    "repeat_interleave": case(lambda t, x: t.repeat_interleave(x, 2, dim=0), M34),
    "repeat_interleave_flat": case(lambda t, x: x.repeat_interleave(3), M23),
    "repeat_interleave_dim1": case(lambda t, x: x.repeat_interleave(2, dim=1), M23),
    "msort": case(lambda t, x: t.msort(x), M34),
    "tensor_deque": lambda t: t.tensor(__import__("collections").deque([1.0, 2.0])),
    "tensor_ranges": lambda t: (t.tensor(range(3)), t.tensor([range(2), range(2)])),
    "dropout_eval": case(lambda t, x: t.dropout(x, 0.5, False), M34),
    "dropout_p0": case(lambda t, x: t.dropout(x, 0.0, True), M34),
    "dropout_seeded": case(lambda t, x: (t.manual_seed(0), t.dropout(x, 0.5, True))[1], M34),
}

GROUPS = {"einsum": EINSUM, "pointwise": POINTWISE, "scans": SCANS, "bins": BINS,
          "matrix": MATRIX, "shapes": SHAPES, "bitwise": BITWISE, "torch_inplace": TORCH_INPLACE}
ALL = {f"{group}-{k}": v for group, cases in GROUPS.items() for k, v in cases.items()}


@pytest.mark.parametrize("name", sorted(ALL))
def test_op_matches_torch(name):
    check(ALL[name])
