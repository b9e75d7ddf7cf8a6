"""Ops the recurrent and attention layers record that ``engine/ops/table.py`` has no row for yet.

Each is an ``Op`` exactly as a row makes it (the table's row takes over when it has one, by
name), run through ``dispatch.apply`` like any row. Two are PyTorch's fused CPU kernels with
several outputs, recorded by a ``FusedNode`` whose backward is a numpy kernel of
``engine/ops/layers.py``: ``MkldnnRnnLayerBackward0`` (one LSTM layer and direction) and
``ScaledDotProductFlashAttentionForCpuBackward0``.
"""

from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import state as grad_state
from ..autograd.node import _FREED_MESSAGE, Node
from ..events import OP_RECORDED, hub
from ..ops.dispatch import edge
from ..ops.table import NODE_OPS, OPS, Op
from ..tensor import Tensor


def _row(table, name, node_name, forward, *vjps, **kw) -> Op:
    return table.get(name) or Op(name, node_name, forward, vjps or None, **kw)


def _safe_softmax(x, dim):
    """Softmax where a row of all -inf gives zeros (not NaN), as ``at::_safe_softmax``."""
    m = x.max(axis=dim, keepdims=True)
    dead = np.isneginf(m)
    e = np.exp(x - np.where(dead, 0, m))
    s = e.sum(axis=dim, keepdims=True)
    return np.where(dead, 0, e / np.where(dead, 1, s)).astype(x.dtype, copy=False)


UNSAFE_SPLIT = _row(
    NODE_OPS, "unsafe_split", "UnsafeSplitBackward0", None, roles=(),
    note="concatenates the outputs' grads back along dim (zeros for an output no grad reached)")

SAFE_SOFTMAX = _row(
    OPS, "safe_softmax", "SafeSoftmaxBackward0", lambda x, dim: _safe_softmax(x, dim),
    lambda g, ans, x, dim: ans * (g - (g * ans).sum(axis=dim, keepdims=True)), saves="r",
    note="y · (grad − Σ grad · y), with y the saved softmax (rows masked out entirely are zero)")

BADDBMM = _row(
    OPS, "baddbmm", "BaddbmmBackward0",
    lambda c, a, b, beta=1, alpha=1: beta * c + alpha * (a @ b),
    lambda g, ans, c, a, b, beta=1, alpha=1: g * beta,
    lambda g, ans, c, a, b, beta=1, alpha=1: alpha * (g @ np.swapaxes(b, -1, -2)),
    lambda g, ans, c, a, b, beta=1, alpha=1: alpha * (np.swapaxes(a, -1, -2) @ g),
    saves="yz", roles=("self", "batch1", "batch2"),
    note="grad_input = β·grad; grad_batch1 = α·grad @ batch2ᵀ, grad_batch2 = α·batch1ᵀ @ grad")

def batch_sizes_of(lengths):
    return [sum(n > t for n in lengths) for t in range(lengths[0] if lengths else 0)]


def _pack_padded(x, lengths, batch_first, shape):
    steps = np.swapaxes(x, 0, 1) if batch_first else x
    return np.concatenate([steps[t, :b] for t, b in enumerate(batch_sizes_of(lengths))])


def _pack_padded_grad(g, ans, x, lengths, batch_first, shape):
    out = np.zeros_like(g, shape=shape)
    steps = np.swapaxes(out, 0, 1) if batch_first else out
    offset = 0
    for t, b in enumerate(batch_sizes_of(lengths)):
        steps[t, :b] = g[offset:offset + b]
        offset += b
    return out


PACK_PADDED_SEQUENCE = _row(
    OPS, "pack_padded_sequence", "PackPaddedSequenceBackward0", _pack_padded, _pack_padded_grad,
    roles=("input",), promote=False,
    note="each packed row's grad goes back to its (step, sequence) place in the padded input; "
         "the padding gets zero")

MKLDNN_RNN_LAYER = Op(
    "mkldnn_rnn_layer", "MkldnnRnnLayerBackward0", None, None,
    roles=("input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_"),
    note="back-propagation through time of one LSTM layer and direction: the grads of its "
         "output sequence and final (h, c) flow back step by step through the gates to the "
         "input, the weights, the biases and the initial (h, c)")

SDPA_FLASH = Op(
    "scaled_dot_product_flash_attention_for_cpu",
    "ScaledDotProductFlashAttentionForCpuBackward0", None, None,
    roles=("query", "key", "value"),
    note="softmax(q·kᵀ·scale + mask)·v backwards: grad_v = Pᵀ·grad, grad of the scores "
         "P·(grad·vᵀ − rowsum), then grad_q = dS·k·scale, grad_k = dSᵀ·q·scale")


class FusedNode(Node):
    """A node with several outputs whose backward is one numpy kernel: ``params["backward"]``
    maps (saved arrays, per-output grads with zeros filled in) to a grad per input."""

    __slots__ = ()

    def apply(self, grads):
        if self.freed:
            raise RuntimeError(_FREED_MESSAGE)
        saved = self.check_saved()
        shapes = self.params["output_meta"]
        ref = next(g for g in grads if g is not None)
        full = [np.zeros_like(ref, shape=s, dtype=d) if g is None else g
                for g, (s, d) in zip(grads, shapes)]
        out = self.params["backward"](saved, full)
        return [g if fn is not None else None for g, (fn, _) in zip(out, self.next_functions)]

    def apply_traced(self, grads):
        raise NotImplementedError(
            f"create_graph=True through {self.op.node_name} is not implemented by the engine")


def record_fused(op, inputs, outputs, saved, backward, num_outputs=None):
    """Tensors for the arrays ``outputs``, recorded by one ``FusedNode`` of ``op`` when an input
    (a Tensor or None) requires grad. ``saved``: extra arrays the backward reads after the
    inputs' arrays (the inputs are saved with their versions, so an in-place change is caught)."""
    needs = grad_state.enabled and any(t is not None and t._requires_grad for t in inputs)
    node = None
    if needs:
        node = FusedNode(
            op, {"backward": backward,
                 "output_meta": tuple((o.shape, o.dtype) for o in outputs)},
            tuple((None, 0) if t is None else edge(t) for t in inputs),
            tuple(((0,), outputs[0].dtype) if t is None else (t.shape, t._data.dtype)
                  for t in inputs),
            [*inputs, *saved], None, None,
            saved_versions=[None if t is None else t._version.value for t in inputs]
            + [None] * len(saved))
        node.num_outputs = num_outputs or len(outputs)
    return outputs_of(node, outputs, False)


def outputs_of(node, arrays, requires_grad: bool) -> list:
    """Tensors for ``arrays``, output k of ``node`` (when not None) each."""
    outs = []
    for i, a in enumerate(arrays):
        t = Tensor._wrap(a)
        t._requires_grad = requires_grad or node is not None
        if node is not None:
            t.grad_fn = node
            t._output_nr = i
        outs.append(t)
    if node is not None and hub.active:
        for t in outs:
            hub.emit(OP_RECORDED, node=node, output=t)
    return outs
