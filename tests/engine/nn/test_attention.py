"""Attention against torch: ``F.scaled_dot_product_attention`` (the CPU flash node and the math
path), ``nn.MultiheadAttention`` (seeded init, both need_weights branches, masks, kdim/vdim,
add_bias_kv, add_zero_attn, batch_first, unbatched) and their errors. ``check`` compares values,
grads of inputs and parameters, and the whole grad_fn graph."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from tests.engine.differential import check
from tests.engine.nn.test_nn import same_error

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(5)


def data(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


Q4, K4, V4 = data(2, 4, 5, 3), data(2, 4, 6, 3), data(2, 4, 6, 3)
FLOAT_MASK = data(5, 6)
BOOL_MASK = RNG.random((5, 6)) > 0.3


def _grad_for(t):
    return np.cos(np.arange(t.numel())).reshape(tuple(t.shape))


def sdpa_snippet(q, k, v, mask=None, mask_grad=False, **kwargs):
    def snippet(torch):
        torch.manual_seed(0)
        qt, kt, vt = (torch.tensor(a, requires_grad=True) for a in (q, k, v))
        m = None if mask is None else torch.tensor(mask, requires_grad=mask_grad)
        out = torch.nn.functional.scaled_dot_product_attention(qt, kt, vt, attn_mask=m,
                                                               **kwargs)
        out.backward(torch.tensor(_grad_for(out), dtype=out.dtype))
        return {"out": out, "q": qt, "k": kt, "v": vt, "mask": m}

    return snippet


@pytest.mark.parametrize("kwargs", [
    {}, {"is_causal": True}, {"mask": FLOAT_MASK}, {"mask": BOOL_MASK}, {"scale": 0.3},
    {"mask": FLOAT_MASK, "is_causal": True}, {"mask": FLOAT_MASK[None, None]},
], ids=["plain", "causal", "float_mask", "bool_mask", "scale", "mask_causal", "mask_4d"])
def test_flash_path(kwargs):
    check(sdpa_snippet(Q4, K4, V4, **kwargs))


def test_flash_grouped_query_heads():
    check(sdpa_snippet(Q4, K4[:, :2], V4[:, :2], enable_gqa=True))


@pytest.mark.parametrize("kwargs", [
    {}, {"is_causal": True}, {"mask": FLOAT_MASK}, {"mask": BOOL_MASK}, {"scale": -0.5},
    {"dropout_p": 0.3},
], ids=["plain", "causal", "float_mask", "bool_mask", "negative_scale", "dropout"])
def test_math_path_3d(kwargs):
    check(sdpa_snippet(Q4[0], K4[0], V4[0], **kwargs))


def test_math_path_4d_dropout_and_mask_needing_grad():
    check(sdpa_snippet(Q4, K4, V4, dropout_p=0.25))
    check(sdpa_snippet(Q4, K4, V4, mask=FLOAT_MASK, mask_grad=True))


def test_math_path_grouped_query_heads():
    check(sdpa_snippet(Q4[0], K4[0, :1], V4[0, :1], enable_gqa=True))


def test_float64_flash():
    check(sdpa_snippet(Q4.astype(np.float64), K4.astype(np.float64), V4.astype(np.float64)))



def _sdpa(t, q, k, v, **kw):
    return t.nn.functional.scaled_dot_product_attention(t.tensor(q), t.tensor(k), t.tensor(v),
                                                        **kw)


@pytest.mark.parametrize("build", [
    lambda t: _sdpa(t, Q4, K4, V4.astype(np.float64)),
    lambda t: _sdpa(t, Q4, K4[:, :3], V4[:, :3], enable_gqa=True),
    lambda t: _sdpa(t, Q4[0], K4[0], V4[0], attn_mask=t.tensor(BOOL_MASK), is_causal=True),
    lambda t: _sdpa(t, Q4, K4, V4, attn_mask=t.ones(5, 6, dtype=t.int64)),
    lambda t: _sdpa(t, Q4, K4, V4, attn_mask=t.ones(5, 6, dtype=t.float64)),
    lambda t: _sdpa(t, Q4.astype(np.int32), K4.astype(np.int32), V4.astype(np.int32)),
    lambda t: _sdpa(t, Q4, K4, V4, dropout_p=1.5),
], ids=range(7))
def test_sdpa_errors(build):
    same_error(build)


# -- MultiheadAttention ---------------------------------------------------------------------------

X = data(5, 2, 8)
KV = data(6, 2, 8)


def mha_snippet(kwargs=None, call=None, train=True, inputs=None):
    """``MultiheadAttention(8, 2, **kwargs)`` after manual_seed(0); ``call(m, q, k, v)`` (default
    ``m(q, k, v)`` with q = k = v), backward through the output (and the weights if given)."""
    kwargs = kwargs or {}

    def snippet(torch):
        torch.manual_seed(0)
        m = torch.nn.MultiheadAttention(8, 2, **kwargs)
        m.train(train)
        arrays = inputs or (X,)
        leaves = [torch.tensor(a, requires_grad=True) for a in arrays]
        out, weights = (call or (lambda m, *xs: m(xs[0], xs[0], xs[0])))(m, *leaves)
        total = (out * torch.tensor(_grad_for(out), dtype=out.dtype)).sum()
        if weights is not None:
            total = total + (weights * torch.tensor(_grad_for(weights),
                                                    dtype=weights.dtype)).sum()
        total.backward()
        return {"out": out, "weights": weights, "leaves": tuple(leaves),
                "params": dict(m.named_parameters()), "repr": repr(m)}

    return snippet


def test_mha_self_attention_with_weights():
    check(mha_snippet())


def test_mha_without_weights_runs_sdpa():
    check(mha_snippet(call=lambda m, x: m(x, x, x, need_weights=False)))


def test_mha_per_head_weights_and_eval():
    check(mha_snippet(call=lambda m, x: m(x, x, x, average_attn_weights=False), train=False))


def test_mha_dropout_draws_torchs_masks():
    check(mha_snippet({"dropout": 0.3}))
    check(mha_snippet({"dropout": 0.3}, call=lambda m, x: m(x, x, x, need_weights=False)))


def test_mha_cross_attention_kv_shared_and_separate():
    check(mha_snippet(call=lambda m, q, kv: m(q, kv, kv), inputs=(X, KV)))
    check(mha_snippet(call=lambda m, q, k, v: m(q, k, v), inputs=(X, KV, KV + 1)))


def test_mha_kdim_vdim():
    check(mha_snippet({"kdim": 3, "vdim": 4}, call=lambda m, q, k, v: m(q, k, v),
                      inputs=(X, data(6, 2, 3), data(6, 2, 4))))


@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_masks(need_weights):
    causal = np.triu(np.full((5, 5), -np.inf, np.float32), 1)
    padding = np.array([[False] * 4 + [True], [False] * 5])
    check(mha_snippet(call=lambda m, x: m(x, x, x, attn_mask=engine_or_torch(x).tensor(causal),
                                          need_weights=need_weights)))
    check(mha_snippet(call=lambda m, x: m(
        x, x, x, key_padding_mask=engine_or_torch(x).tensor(padding),
        need_weights=need_weights)))
    bool_causal = np.triu(np.ones((5, 5), bool), 1)
    check(mha_snippet(call=lambda m, x: m(
        x, x, x, attn_mask=engine_or_torch(x).tensor(bool_causal),
        key_padding_mask=engine_or_torch(x).tensor(padding), need_weights=need_weights)))


def engine_or_torch(x):
    return torch if type(x).__module__.startswith("torch") else engine


def test_mha_is_causal_hint_without_weights():
    causal = np.triu(np.full((5, 5), -np.inf, np.float32), 1)
    check(mha_snippet(call=lambda m, x: m(x, x, x, attn_mask=engine_or_torch(x).tensor(causal),
                                          is_causal=True, need_weights=False)))


@pytest.mark.parametrize("kwargs", [{"bias": False}, {"add_bias_kv": True},
                                    {"add_zero_attn": True},
                                    {"add_bias_kv": True, "add_zero_attn": True}], ids=str)
def test_mha_options(kwargs):
    check(mha_snippet(kwargs))
    check(mha_snippet(kwargs, call=lambda m, x: m(x, x, x, need_weights=False)))


def test_mha_batch_first_and_unbatched():
    check(mha_snippet({"batch_first": True}, inputs=(X.transpose(1, 0, 2).copy(),)))
    check(mha_snippet(inputs=(X[:, 0],)))
    check(mha_snippet(inputs=(X[:, 0],), call=lambda m, x: m(x, x, x, need_weights=False)))


@pytest.mark.parametrize("kwargs", [{}, {"kdim": 3, "vdim": 5}, {"add_bias_kv": True},
                                    {"bias": False}], ids=str)
def test_mha_seeded_init_is_bit_exact(kwargs):
    torch.manual_seed(11)
    engine.manual_seed(11)
    expected = torch.nn.MultiheadAttention(8, 2, **kwargs).state_dict()
    actual = engine.nn.MultiheadAttention(8, 2, **kwargs).state_dict()
    assert list(expected) == list(actual)
    for name in expected:
        assert np.array_equal(expected[name].numpy(), actual[name].numpy()), name


def _mha(t, *shapes, **kw):
    m = t.nn.MultiheadAttention(8, 2)
    return m(*(t.zeros(*s) for s in shapes), **kw)


@pytest.mark.parametrize("build", [
    lambda t: t.nn.MultiheadAttention(8, 3),
    lambda t: t.nn.MultiheadAttention(0, 2),
    lambda t: _mha(t, (5, 2, 8), (6, 2, 8), (6, 2)),
    lambda t: _mha(t, (5, 2, 7), (5, 2, 7), (5, 2, 7)),
    lambda t: _mha(t, (5, 2, 8), (6, 2, 8), (7, 2, 8)),
    lambda t: _mha(t, (5, 8), (6, 2, 8), (6, 2, 8)),
    lambda t: _mha(t, (2, 5, 2, 8), (6, 2, 8), (6, 2, 8)),
    lambda t: _mha(t, (5, 2, 8), (5, 2, 8), (5, 2, 8), attn_mask=t.zeros(4, 5)),
    lambda t: _mha(t, (5, 2, 8), (5, 2, 8), (5, 2, 8), attn_mask=t.zeros(3, 5, 5)),
    lambda t: _mha(t, (5, 2, 8), (5, 2, 8), (5, 2, 8), key_padding_mask=t.zeros(3, 5)),
    lambda t: _mha(t, (5, 2, 8), (5, 2, 8), (5, 2, 8), attn_mask=t.zeros(5, 5, dtype=t.int64)),
    lambda t: _mha(t, (5, 2, 8), (5, 2, 8), (5, 2, 8), is_causal=True),
], ids=range(12))
def test_mha_errors(build):
    same_error(build)


def test_fully_masked_rows_give_zeros():
    mask = BOOL_MASK.copy()
    mask[1] = False
    check(sdpa_snippet(Q4, K4, V4, mask=mask))
    check(sdpa_snippet(Q4[0], K4[0], V4[0], mask=mask))


def test_mha_inference_fast_path_values():
    """Eval under no_grad: torch takes ``_native_multi_head_attention``; same values."""
    def snippet(torch):
        torch.manual_seed(0)
        m = torch.nn.MultiheadAttention(8, 2, batch_first=True).eval()
        x = torch.tensor(X.transpose(1, 0, 2).copy())
        with torch.no_grad():
            return m(x, x, x)

    check(snippet)
