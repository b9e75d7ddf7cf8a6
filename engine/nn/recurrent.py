"""The recurrent computations behind ``nn.RNN`` / ``LSTM`` / ``GRU`` and their cells, recorded as
PyTorch's CPU kernels record them (``aten/src/ATen/native/RNN.cpp``).

- RNN and GRU, and LSTM in float64 or with projections: the cells as ops (``AddmmBackward0``,
  ``UnsafeSplitBackward0``, ``SigmoidBackward0``...). On CPU the input projection of a whole
  layer is computed once (``linear_ih`` over all steps, then ``unbind``), each step adds the
  hidden projection, the outputs are stacked; bidirectional layers are concatenated on the last
  dim, the final hidden states stacked.
- LSTM in float32 (no projections): PyTorch runs oneDNN, one fused ``MkldnnRnnLayerBackward0``
  per layer and direction, with outputs (output, hy, cy, workspace); its kernel is
  ``engine/ops/layers.py:lstm_layer_forward``.
"""

from __future__ import annotations

from ..ops import api, layers
from ..ops.dispatch import record_fused
from ..ops.table import NODE_OPS
from . import functional as F

# -- cells (one step; ``pre_computed``: the input projection was made for the whole layer) ------

class CellParams:
    """One layer and direction's weights: ``w_ih, w_hh, b_ih, b_hh, w_hr`` (None when absent)."""

    __slots__ = ("w_ih", "w_hh", "b_ih", "b_hh", "w_hr")

    def __init__(self, w_ih, w_hh, b_ih=None, b_hh=None, w_hr=None) -> None:
        self.w_ih, self.w_hh, self.b_ih, self.b_hh, self.w_hr = w_ih, w_hh, b_ih, b_hh, w_hr

    def linear_ih(self, x):
        return F.linear(x, self.w_ih, self.b_ih)

    def linear_hh(self, h):
        return F.linear(h, self.w_hh, self.b_hh)

    def project(self, h):
        return h if self.w_hr is None else api.matmul(h, self.w_hr.t())


def rnn_cell(x, h, p: CellParams, nonlinearity: str, pre_computed: bool = False):
    """``tanh(linear_hh(h) + linear_ih(x))`` (or relu)."""
    total = p.linear_hh(h).add_(x if pre_computed else p.linear_ih(x))
    return api.tanh(total) if nonlinearity == "tanh" else api.relu(total)


def lstm_cell(x, hc, p: CellParams, pre_computed: bool = False):
    """(hy, cy) of PyTorch's LSTMCell: gates i, f, g, o from one addmm each side."""
    h, c = hc
    gates = p.linear_hh(h).add_(x if pre_computed else p.linear_ih(x))
    i, f, g, o = api.unsafe_chunk(gates, 4, 1)
    # PyTorch's in-place sigmoid_/tanh_/add_/mul_ on these pieces record the same nodes as the
    # out-of-place ops used here
    i, f, g, o = api.sigmoid(i), api.sigmoid(f), api.tanh(g), api.sigmoid(o)
    cy = (f * c).add_(i * g)
    hy = o * api.tanh(cy)
    return p.project(hy), cy


def gru_cell(x, h, p: CellParams, pre_computed: bool = False):
    """PyTorch's GRUCell: r and z gates, the new gate ``tanh(x_n + r * h_n)``, then
    ``(h - n) * z + n``."""
    i_r, i_z, i_n = api.unsafe_chunk(x if pre_computed else p.linear_ih(x), 3, 1)
    h_r, h_z, h_n = api.unsafe_chunk(p.linear_hh(h), 3, 1)
    reset = api.sigmoid(h_r + i_r)
    update = api.sigmoid(h_z + i_z)
    new = api.tanh(i_n + h_n * reset)
    return (h - new).mul_(update).add_(new)


# -- layers of ops (RNN, GRU, LSTM in float64 or with projections, packed input) ---------------

def _output_of(hidden):
    return hidden[0] if isinstance(hidden, tuple) else hidden


def full_layer(cell):
    """One direction over (T, B, I): the stacked outputs and the final hidden state."""

    def layer(x, hidden, p: CellParams, reverse: bool):
        steps = list(api.unbind(p.linear_ih(x), 0))
        outputs = [None] * len(steps)
        order = range(len(steps) - 1, -1, -1) if reverse else range(len(steps))
        for t in order:
            hidden = cell(steps[t], hidden, p)
            outputs[t] = _output_of(hidden)
        return api.stack(outputs, 0), hidden

    return layer


def _hidden_slice(hidden, start, end):
    if isinstance(hidden, tuple):
        return tuple(h[start:end] for h in hidden)
    return hidden[start:end]


def _hidden_concat(hiddens):
    if isinstance(hiddens[0], tuple):
        return tuple(api.cat(list(parts), 0) for parts in zip(*hiddens))
    return api.cat(list(hiddens), 0)


def packed_layer(cell, batch_sizes):
    """One direction over packed (N, I) data (ATen's PackedLayer / ReversedPackedLayer): the
    hidden state shrinks (forwards) or grows (backwards) with the batch size of each step."""

    def forward(data, hidden, p):
        xw = p.linear_ih(data)
        offset, last = 0, batch_sizes[0]
        finished, outputs = [], []
        for b in batch_sizes:
            step = xw[offset:offset + b]
            offset += b
            if last > b:
                finished.append(_hidden_slice(hidden, b, last))
                hidden = _hidden_slice(hidden, 0, b)
            last = b
            hidden = cell(step, hidden, p)
            outputs.append(_output_of(hidden))
        finished.append(hidden)
        return api.cat(outputs, 0), _hidden_concat(finished[::-1])

    def backward(data, initial, p):
        xw = p.linear_ih(data)
        offset, last = data.shape[0], batch_sizes[-1]
        hidden = _hidden_slice(initial, 0, last)
        outputs = []
        for b in reversed(batch_sizes):
            if b > last:
                hidden = _hidden_concat([hidden, _hidden_slice(initial, last, b)])
            step = xw[offset - b:offset]
            offset -= b
            last = b
            hidden = cell(step, hidden, p)
            outputs.append(_output_of(hidden))
        return api.cat(outputs[::-1], 0), hidden

    return lambda x, hidden, p, reverse: (backward if reverse else forward)(x, hidden, p)


def run_layers(layer, x, hiddens, params, num_layers, dropout, train, bidirectional):
    """PyTorch's ``apply_layer_stack``: (output, final hiddens in layer-direction order)."""
    dirs = 2 if bidirectional else 1
    finals = []
    for index in range(num_layers):
        outs = []
        for d in range(dirs):
            k = index * dirs + d
            out, final = layer(x, hiddens[k], params[k], d == 1)
            outs.append(out)
            finals.append(final)
        x = outs[0] if dirs == 1 else api.cat(outs, outs[0].ndim - 1)
        if dropout and train and index < num_layers - 1:
            x = F.dropout(x, dropout, True)
    return x, finals


# -- the fused LSTM layer (float32) --------------------------------------------------------------

def mkldnn_lstm_layer(x, w_ih, w_hh, b_ih, b_hh, hx, cx, reverse: bool):
    """(output, hy, cy) of one fused layer and direction (MkldnnRnnLayerBackward0, whose fourth
    output is oneDNN's workspace); biases may be None (zeros, no edge)."""
    inputs = (x, w_ih, w_hh, b_ih, b_hh, hx, cx)
    arrays = [None if t is None else t._data for t in inputs]
    out, hy, cy, cache = layers.lstm_layer_forward(*arrays, reverse)

    def backward(saved, grads):
        x, w_ih, w_hh, _, _, h0, _, out, cache = saved
        gx, gw_ih, gw_hh, gb, gh, gc = layers.lstm_layer_backward(
            grads[0], grads[1], grads[2], x, w_ih, w_hh, h0, out, cache, reverse)
        return gx, gw_ih, gw_hh, gb, gb, gh, gc

    return record_fused(NODE_OPS["mkldnn_rnn_layer"], inputs, [out, hy, cy], [out, cache], backward,
                        num_outputs=4)


def mkldnn_lstm(x, h0, c0, params, num_layers, dropout, train, bidirectional, batch_first):
    """PyTorch's ``mkldnn_rnn``: (output, h_n, c_n) through one fused node per layer and
    direction (``hx[k]`` selected per layer), outputs concatenated between directions."""
    if batch_first:
        x = x.transpose(0, 1)
    x = x.contiguous()
    dirs = 2 if bidirectional else 1
    hys, cys = [], []
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            p = params[k]
            out, hy, cy = mkldnn_lstm_layer(x, p.w_ih, p.w_hh, p.b_ih, p.b_hh, h0[k], c0[k],
                                            reverse=d == 1)
            outs.append(out)
            hys.append(hy)
            cys.append(cy)
        x = outs[0] if dirs == 1 else api.cat(outs, -1)
        if dropout and train and layer < num_layers - 1:
            x = F.dropout(x, dropout, True)
    if batch_first:
        x = x.transpose(0, 1)
    return x, api.stack(hys, 0), api.stack(cys, 0)
