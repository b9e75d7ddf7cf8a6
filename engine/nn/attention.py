"""Attention: ``F.scaled_dot_product_attention``, ``F.multi_head_attention_forward`` and
``nn.MultiheadAttention``, as PyTorch's CPU build records them.

``scaled_dot_product_attention`` takes PyTorch's CPU flash kernel (one
``ScaledDotProductFlashAttentionForCpuBackward0`` with edges to q, k, v) for 4-D inputs with
unit last-dim strides, no dropout and a mask that needs no grad; otherwise its math path
(``_scaled_dot_product_attention_math``: q and kᵀ each scaled by sqrt(scale), matmul, the mask
added, ``SafeSoftmaxBackward0``, dropout, matmul). ``multi_head_attention_forward`` is a port of
PyTorch's Python function; ``MultiheadAttention`` never takes PyTorch's no-grad fast path
(``_native_multi_head_attention``), which computes the same values without a graph.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import creation, dtypes
from ..dtypes import c_type_name, scalar_type_name
from ..ops import api, layers
from ..ops.dispatch import apply, record_fused
from ..ops.table import NODE_OPS, OPS
from ..tensor import Tensor
from . import functional as F
from . import init
from .linear import NonDynamicallyQuantizableLinear
from .module import Module
from .parameter import Parameter


def _bool_to_additive(mask, dtype):
    """PyTorch's ``convert_boolean_attn_mask``: True attends (0), False is masked (-inf)."""
    if mask is None or mask._data.dtype != np.bool_:
        return mask
    return Tensor._wrap(np.where(mask._data, 0, -np.inf).astype(dtype))


def _check_sdpa(query, key, value, attn_mask, dropout_p, enable_gqa):
    dts = [t._data.dtype for t in (query, key, value)]
    if not dts[0] == dts[1] == dts[2]:
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{c_type_name(dts[0])} key.dtype: {c_type_name(dts[1])} and value.dtype: "
            f"{c_type_name(dts[2])} instead.")
    if attn_mask is not None and attn_mask._data.dtype not in (np.bool_, dts[0]):
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {c_type_name(attn_mask._data.dtype)} and  query.dtype: "
            f"{c_type_name(dts[0])} instead.")
    if dts[0].kind != "f":
        raise RuntimeError(f"expected scalar type Float but found {scalar_type_name(dts[0])}")
    if not 0 <= dropout_p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    if enable_gqa and query.ndim >= 3:
        hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
        if hq % hk or hq % hv:
            raise RuntimeError("Number of heads in key and value must divide the number of "
                               "heads in ")


def _unit_stride(t) -> bool:
    a = t._data
    return a.shape[-1] <= 1 or a.strides[-1] == a.itemsize


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """``softmax(q kᵀ · scale + mask) v`` over (..., L, E) query and (..., S, E) key / value
    (scale 1/sqrt(E) by default; a bool mask attends where True; ``is_causal``: the lower
    triangle; ``enable_gqa``: key/value heads shared by groups of query heads)."""
    _check_sdpa(query, key, value, attn_mask, dropout_p, enable_gqa)
    flash = (query.ndim == 4 and key.ndim == 4 and value.ndim == 4 and dropout_p == 0
             and (attn_mask is None or not attn_mask.requires_grad)
             and all(_unit_stride(t) for t in (query, key, value))
             and query.shape[-2] > 0 and key.shape[-2] > 0)
    if flash:
        return _sdpa_flash(query, key, value, attn_mask, is_causal, scale, enable_gqa)
    return _sdpa_math(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)


def _sdpa_flash(query, key, value, attn_mask, is_causal, scale, enable_gqa):
    dt = query._data.dtype
    s = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
    mask = None
    if attn_mask is not None:
        mask = _bool_to_additive(attn_mask, dt)._data
    if is_causal:
        causal = np.where(np.tri(query.shape[-2], key.shape[-2], dtype=bool), 0, -np.inf)
        mask = causal.astype(dt) if mask is None else mask + causal.astype(dt)
    groups = query.shape[-3] // key.shape[-3] if enable_gqa else 1
    out, probs = layers.sdpa_forward(query._data, key._data, value._data, mask, s, groups)
    laid_out = np.empty_like(query._data)  # the kernel writes in the query's memory layout
    laid_out[...] = out
    out = laid_out
    lse = np.zeros(query.shape[:-1], dtype=dt)  # logsumexp: what the kernel also returns

    def backward(saved, grads):
        q, k, v, probs = saved
        return layers.sdpa_backward(grads[0], q, k, v, probs, s, groups)

    return record_fused(NODE_OPS["scaled_dot_product_flash_attention_for_cpu"], (query, key, value),
                        [out, lse], [probs], backward)[0]


def _sdpa_math(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    dt = query._data.dtype
    mask = _bool_to_additive(attn_mask, dt)
    negative = scale is not None and scale < 0
    factor = math.sqrt(abs(scale) if negative else (
        1 / math.sqrt(query.shape[-1]) if scale is None else scale))
    q = apply(OPS["mul_scalar"], query, other=-factor if negative else factor)
    if is_causal:
        if mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                               "set when is_causal=True")
        mask = _bool_to_additive(creation.ones(query.shape[-2], key.shape[-2],
                                               dtype=dtypes.bool).tril(), dt)
    if enable_gqa and query.ndim >= 3 and key.shape[-3] != query.shape[-3]:
        key = _repeat_heads(key, query.shape[-3] // key.shape[-3])
        value = _repeat_heads(value, query.shape[-3] // value.shape[-3])
    scores = api.matmul(q, apply(OPS["mul_scalar"], key.transpose(-2, -1), other=factor))
    if mask is not None:
        scores = scores.add_(mask)
    attn = apply(OPS["safe_softmax"], scores, dim=-1)
    if dropout_p > 0:
        attn = F.dropout(attn, dropout_p, True)
    return api.matmul(attn, value)


def _repeat_heads(t, reps: int):
    """``t.repeat_interleave(reps, -3)`` as PyTorch computes it for an int: unsqueeze, expand,
    clone, flatten."""
    d = t.ndim - 3
    shape = tuple(t.shape)
    wide = t.unsqueeze(d + 1).expand(*shape[:d + 1], reps, *shape[d + 1:]).clone()
    return wide.view(*shape[:d], shape[d] * reps, *shape[d + 1:])


# -- multi-head attention (a port of torch.nn.functional.multi_head_attention_forward) --------

def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads) -> bool:
    """PyTorch's checks of the ranks: True for batched (3-D) input, False for unbatched."""
    if query.dim() not in (2, 3):
        raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                             f"{query.dim()}-D query tensor")
    batched = query.dim() == 3
    kind = "batched (3-D)" if batched else "unbatched (2-D)"
    rank, mask_rank = (3, "2-D") if batched else (2, "1-D")
    if key.dim() != rank or value.dim() != rank:
        raise AssertionError(
            f"For {kind} `query`, expected `key` and `value` to be {rank}-D but found "
            f"{key.dim()}-D and {value.dim()}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != rank - 1:
        raise AssertionError(
            f"For {kind} `query`, expected `key_padding_mask` to be `None` or {mask_rank} but "
            f"found {key_padding_mask.dim()}-D tensor instead")
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(
                f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                f"{attn_mask.dim()}-D tensor instead")
        expected = (num_heads, query.shape[0], key.shape[0])
        if not batched and attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
            raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                 f"{attn_mask.shape}")
    return batched


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A bool mask as an additive float one (-inf where True), PyTorch's rules and warning."""
    if mask is None:
        return None
    kind = mask._data.dtype
    is_float = kind.kind == "f"
    if kind != np.bool_ and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use "
                      "same type for both instead.", UserWarning, stacklevel=3)
    if not is_float:
        return creation.zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _in_projection_packed(q, k, v, w, b=None):
    e = q.size(-1)
    if k is v:
        if q is k:
            proj = F.linear(q, w, b)
            proj = (proj.view(*proj.shape[:-1], 3, e).unsqueeze(0).transpose(0, -2)
                    .squeeze(-2).contiguous())
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([e, e * 2])
        b_q, b_kv = (None, None) if b is None else b.split([e, e * 2])
        q_proj = F.linear(q, w_q, b_q)
        kv = F.linear(k, w_kv, b_kv)
        kv = kv.view(*kv.shape[:-1], 2, e).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return q_proj, kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return F.linear(q, w_q, b_q), F.linear(k, w_k, b_k), F.linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    eq, ek, ev = q.size(-1), k.size(-1), v.size(-1)
    for name, w, shape in (("query", w_q, (eq, eq)), ("key", w_k, (eq, ek)),
                           ("value", w_v, (eq, ev))):
        if tuple(w.shape) != shape:
            raise AssertionError(f"expecting {name} weights shape of {shape}, but got {w.shape}")
    for name, b in (("query", b_q), ("key", b_k), ("value", b_v)):
        if b is not None and tuple(b.shape) != (eq,):
            raise AssertionError(f"expecting {name} bias shape of {(eq,)}, but got {b.shape}")
    return F.linear(q, w_q, b_q), F.linear(k, w_k, b_k), F.linear(v, w_v, b_v)


def _check_mha_sizes(query, key, value, embed_dim_to_check, num_heads,
                     use_separate_proj_weight) -> int:
    embed_dim = query.shape[2]
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                                 f"value's {value.shape[:2]}")
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    return head_dim


def _attn_mask_3d(attn_mask, tgt_len, src_len, bsz, num_heads):
    if attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should "
                               f"be {(tgt_len, src_len)}.")
        return attn_mask.unsqueeze(0)
    if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
        raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                           f"{(bsz * num_heads, tgt_len, src_len)}.")
    return attn_mask


def _heads(t, static, bsz, num_heads, head_dim, name):
    """(B·heads, S, head_dim) from (S, B, E), or the given static keys / values."""
    if static is None:
        return t.view(t.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if static.size(0) != bsz * num_heads:
        raise AssertionError(f"expecting {name}.size(0) of {bsz * num_heads}, but got "
                             f"{static.size(0)}")
    if static.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got "
                             f"{static.size(2)}")
    return static


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """PyTorch's function over (L, B, E) query and (S, B, E) key / value (unbatched: no B)."""
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    key_padding_mask = _canonical_mask(
        key_padding_mask, "key_padding_mask",
        None if attn_mask is None else attn_mask.dtype, "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                    check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    head_dim = _check_mha_sizes(query, key, value, embed_dim_to_check, num_heads,
                                use_separate_proj_weight)
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(
                    f"use_separate_proj_weight is True but {name}_proj_weight is None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight,
                                 v_proj_weight, b_q, b_k, b_v)
    if attn_mask is not None:
        attn_mask = _attn_mask_3d(attn_mask, tgt_len, key.shape[0], bsz, num_heads)
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = api.cat([k, bias_k.repeat(1, bsz, 1)])
        v = api.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = F.pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = F.pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = _heads(k, static_k, bsz, num_heads, head_dim, "static_k")
    v = _heads(v, static_v, bsz, num_heads, head_dim, "static_v")
    if add_zero_attn:
        zeros = (bsz * num_heads, 1, head_dim)
        k = api.cat([k, creation.zeros(zeros, dtype=k.dtype)], 1)
        v = api.cat([v, creation.zeros(zeros, dtype=v.dtype)], 1)
        if attn_mask is not None:
            attn_mask = F.pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = F.pad(key_padding_mask, (0, 1))
    src_len = k.size(1)
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = (key_padding_mask.view(bsz, 1, 1, src_len)
                            .expand(-1, num_heads, -1, -1).reshape(bsz * num_heads, 1, src_len))
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    if need_weights:
        return _weighted_attention(q, k, v, attn_mask, dropout_p, is_causal, out_proj_weight,
                                   out_proj_bias, average_attn_weights, is_batched,
                                   (tgt_len, bsz, embed_dim, num_heads, src_len))
    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = F.linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.size(1))
    return (out if is_batched else out.squeeze(1)), None


def _weighted_attention(q, k, v, attn_mask, dropout_p, is_causal, out_proj_weight,
                        out_proj_bias, average, is_batched, sizes):
    """The need_weights branch: explicit scores (baddbmm with the mask), softmax, dropout."""
    tgt_len, bsz, embed_dim, num_heads, src_len = sizes
    q_scaled = q * math.sqrt(1.0 / float(q.shape[2]))
    if is_causal and attn_mask is None:
        raise AssertionError("FIXME: is_causal not implemented for need_weights")
    if attn_mask is not None:
        weights = apply(OPS["baddbmm"], attn_mask, q_scaled, k.transpose(-2, -1))
    else:
        weights = api.bmm(q_scaled, k.transpose(-2, -1))
    weights = F.softmax(weights, dim=-1)
    if dropout_p > 0.0:
        weights = F.dropout(weights, p=dropout_p)
    out = api.bmm(weights, v)
    out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
    out = F.linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.size(1))
    weights = weights.view(bsz, num_heads, tgt_len, src_len)
    if average:
        weights = weights.mean(dim=1)
    if not is_batched:
        out, weights = out.squeeze(1), weights.squeeze(0)
    return out, weights


class MultiheadAttention(Module):
    """Multi-head attention (PyTorch's parameters: ``in_proj_weight`` or ``q/k/v_proj_weight``
    when kdim / vdim differ, ``in_proj_bias``, ``out_proj``, ``bias_k`` / ``bias_v``)."""

    _torch_class_name = "torch.nn.modules.activation.MultiheadAttention"

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim="
                             f"{embed_dim} and num_heads={num_heads} instead")
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")

        def empty(*shape):
            return Parameter(creation.empty(shape, dtype=dtype))

        if not self._qkv_same_embed_dim:
            self.q_proj_weight = empty(embed_dim, embed_dim)
            self.k_proj_weight = empty(embed_dim, self.kdim)
            self.v_proj_weight = empty(embed_dim, self.vdim)
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = empty(3 * embed_dim, embed_dim)
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        if bias:
            self.in_proj_bias = empty(3 * embed_dim)
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        dtype=dtype)
        if add_bias_kv:
            self.bias_k = empty(1, 1, embed_dim)
            self.bias_v = empty(1, 1, embed_dim)
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        is_batched = query.dim() == 3
        key_padding_mask = _canonical_mask(
            key_padding_mask, "key_padding_mask",
            None if attn_mask is None else attn_mask.dtype, "attn_mask", query.dtype)
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                    check_other=False)
        if self.batch_first and is_batched:
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = not self._qkv_same_embed_dim
        out, weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=separate, q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        if self.batch_first and is_batched:
            return out.transpose(1, 0), weights
        return out, weights
