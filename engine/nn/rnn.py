"""``RNN``, ``LSTM``, ``GRU`` and their cells: PyTorch's modules (``torch/nn/modules/rnn.py``),
with its parameter names, shapes, checks and init (every parameter from U(-1/sqrt(hidden),
1/sqrt(hidden)) in registration order). The computations are in ``recurrent.py``."""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from .. import creation
from ..ops import api
from . import init
from . import recurrent as R
from .module import Module
from .parameter import Parameter
from .utils.rnn import PackedSequence

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _check_type(name, value, kind, kind_name) -> None:
    if not isinstance(value, kind):
        raise TypeError(f"{name} should be of type {kind_name}, got: {type(value).__name__}")


def _uniform_all(module, hidden_size: int) -> None:
    stdv = 1.0 / math.sqrt(hidden_size) if hidden_size > 0 else 0
    for weight in module.parameters():
        init.uniform_(weight, -stdv, stdv)


class RNNBase(Module):
    """What RNN, LSTM and GRU share: the layers' parameters and the argument checks."""

    _torch_class_name = "torch.nn.modules.rnn.RNNBase"

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device=None,
                 dtype=None) -> None:
        super().__init__()
        vars(self).update(mode=mode, input_size=input_size, hidden_size=hidden_size,
                          num_layers=num_layers, bias=bias, batch_first=batch_first,
                          dropout=float(dropout), bidirectional=bidirectional,
                          proj_size=proj_size)
        dirs = 2 if bidirectional else 1
        if (not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1
                or isinstance(dropout, bool)):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                f"dropout expects num_layers greater than 1, but got dropout={dropout} and "
                f"num_layers={num_layers}", UserWarning, stacklevel=3)
        _check_type("bias", bias, bool, "bool")
        _check_type("batch_first", batch_first, bool, "bool")
        _check_type("input_size", input_size, int, "int")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        _check_type("hidden_size", hidden_size, int, "int")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(dirs):
                layer_input = input_size if layer == 0 else real_hidden * dirs
                shapes = [(gate_size, layer_input), (gate_size, real_hidden)]
                names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    shapes += [(gate_size,), (gate_size,)]
                    names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if proj_size > 0:
                    shapes.append((proj_size, hidden_size))
                    names.append("weight_hr_l{}{}")
                suffix = "_reverse" if direction == 1 else ""
                names = [n.format(layer, suffix) for n in names]
                for name, shape in zip(names, shapes):
                    setattr(self, name, Parameter(creation.empty(shape, dtype=dtype)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, n, None) for n in self._flat_weights_names]

    @property
    def all_weights(self) -> list:
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """A no-op, as on CPU."""

    def reset_parameters(self) -> None:
        _uniform_all(self, self.hidden_size)

    def _cell_params(self) -> list:
        """One ``CellParams`` per layer and direction."""
        out = []
        for names in self._all_weights:
            ws = [getattr(self, n) for n in names]
            w_hr = ws.pop() if self.proj_size > 0 else None
            b_ih, b_hh = (ws[2], ws[3]) if self.bias else (None, None)
            out.append(R.CellParams(ws[0], ws[1], b_ih, b_hh, w_hr))
        return out

    # -- checks (PyTorch's messages) -----------------------------------------------------------

    def _batch_input(self, input, hx, name: str, hidden_dims):
        """(input, hx, is_batched) with a batch dim added to unbatched input (and its hx)."""
        if input.dim() not in (2, 3):
            shown = f"{input.dim()}D tensor instead" if self.mode.startswith("RNN") else \
                f"{input.dim()}D instead"
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {shown}")
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(0 if self.batch_first else 1)
        hx = hidden_dims(hx, batched)
        return input, hx, batched

    def check_input(self, input, batch_sizes=None) -> None:
        w = self._flat_weights[0]
        if input.dtype != w.dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({w.dtype}). "
                f"Convert input: input.to({w.dtype}), or convert model: model.to({input.dtype})")
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError("input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def _mini_batch(self, input, batch_sizes) -> int:
        if batch_sizes is not None:
            return int(batch_sizes[0])
        return input.size(0) if self.batch_first else input.size(1)

    def get_expected_hidden_size(self, input, batch_sizes=None) -> tuple:
        dirs = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * dirs, self._mini_batch(input, batch_sizes), size)

    def check_hidden_size(self, hx, expected, msg: str = "Expected hidden size {}, got {}"):
        if tuple(hx.size()) != tuple(expected):
            raise RuntimeError(msg.format(expected, list(hx.size())))

    def _zeros(self, input, size: int, batch_sizes=None):
        dirs = 2 if self.bidirectional else 1
        return creation.zeros(self.num_layers * dirs, self._mini_batch(input, batch_sizes), size,
                              dtype=input.dtype)

    def _unpack(self, input, hx, pair: bool):
        """(input, hx, batched, packing): a PackedSequence's data and batch sizes (its hidden
        state put in the packed order), or the input with a batch dim added when unbatched."""
        if isinstance(input, PackedSequence):
            data, batch_sizes, sorted_indices, unsorted_indices = input
            if hx is not None and sorted_indices is not None:
                hx = (tuple(h.index_select(1, sorted_indices) for h in hx) if pair
                      else hx.index_select(1, sorted_indices))
            return data, hx, True, (batch_sizes, sorted_indices, unsorted_indices)
        name = {"RNN_TANH": "RNN", "RNN_RELU": "RNN"}.get(self.mode, self.mode)
        input, hx, batched = self._batch_input(
            input, hx, name, self._pair_hidden if pair else self._single_hidden)
        return input, hx, batched, None

    def _layer(self, cell, packing):
        if packing is None:
            return R.full_layer(cell)
        return R.packed_layer(cell, [int(b) for b in packing[0]._data])

    def _pack(self, output, hidden, batched, packing):
        """The module's result: output and hidden back in the caller's form."""
        if packing is not None:
            batch_sizes, sorted_indices, unsorted_indices = packing
            if unsorted_indices is not None:
                hidden = (tuple(h.index_select(1, unsorted_indices) for h in hidden)
                          if isinstance(hidden, tuple) else
                          hidden.index_select(1, unsorted_indices))
            return PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices), hidden
        if not batched:
            output = output.squeeze(0 if self.batch_first else 1)
            hidden = (tuple(h.squeeze(1) for h in hidden) if isinstance(hidden, tuple)
                      else hidden.squeeze(1))
        return output, hidden

    def _single_hidden(self, hx, batched):
        if hx is None:
            return None
        if batched and hx.dim() != 3:
            raise RuntimeError(
                f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
        if not batched:
            if hx.dim() != 2:
                raise RuntimeError(
                    f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")
            hx = hx.unsqueeze(1)
        return hx

    def _forward_single(self, input, hx, cell):
        input, hx, batched, packing = self._unpack(input, hx, pair=False)
        batch_sizes = None if packing is None else packing[0]
        if hx is None:
            hx = self._zeros(input, self.hidden_size, batch_sizes)
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hx, self.get_expected_hidden_size(input, batch_sizes))
        x = input.transpose(0, 1) if self.batch_first and packing is None else input
        output, finals = R.run_layers(self._layer(cell, packing), x, list(hx.unbind(0)),
                                      self._cell_params(), self.num_layers, self.dropout,
                                      self.training, self.bidirectional)
        if self.batch_first and packing is None:
            output = output.transpose_(0, 1)
        return self._pack(output, api.stack(finals, 0), batched, packing)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        for name, default in (("proj_size", 0), ("num_layers", 1), ("bias", True),
                              ("batch_first", False), ("dropout", 0), ("bidirectional", False)):
            value = getattr(self, name)
            if value != default:
                s += f", {name}={value}"
        return s


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or relu)."""

    _torch_class_name = "torch.nn.modules.rnn.RNN"

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(
                f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self.__dict__["nonlinearity"] = nonlinearity
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        kind = "tanh" if self.mode == "RNN_TANH" else "relu"
        return self._forward_single(
            input, hx, lambda x, h, p: R.rnn_cell(x, h, p, kind, pre_computed=True))


class GRU(RNNBase):
    """Gated recurrent unit (PyTorch's gate order: reset, update, new)."""

    _torch_class_name = "torch.nn.modules.rnn.GRU"

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward_single(
            input, hx, lambda x, h, p: R.gru_cell(x, h, p, pre_computed=True))


class LSTM(RNNBase):
    """Long short-term memory (gates input, forget, cell, output); ``proj_size`` projects h."""

    _torch_class_name = "torch.nn.modules.rnn.LSTM"

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def _pair_hidden(self, hx, batched):
        if hx is None:
            return None
        h, c = hx
        if batched and (h.dim() != 3 or c.dim() != 3):
            raise RuntimeError("For batched 3-D input, hx and cx should also be 3-D but got "
                               f"({h.dim()}-D, {c.dim()}-D) tensors")
        if not batched:
            if h.dim() != 2 or c.dim() != 2:
                raise RuntimeError("For unbatched 2-D input, hx and cx should also be 2-D but "
                                   f"got ({h.dim()}-D, {c.dim()}-D) tensors")
            h, c = h.unsqueeze(1), c.unsqueeze(1)
        return h, c

    def get_expected_cell_size(self, input, batch_sizes=None) -> tuple:
        return (self.num_layers * (2 if self.bidirectional else 1),
                self._mini_batch(input, batch_sizes), self.hidden_size)

    def forward(self, input, hx=None):
        input, hx, batched, packing = self._unpack(input, hx, pair=True)
        batch_sizes = None if packing is None else packing[0]
        if hx is None:
            real = self.proj_size if self.proj_size > 0 else self.hidden_size
            hx = (self._zeros(input, real, batch_sizes),
                  self._zeros(input, self.hidden_size, batch_sizes))
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hx[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hx[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")
        params = self._cell_params()
        float32 = input._data.dtype == np.float32
        if float32 and self.proj_size == 0 and input.numel() and packing is None:
            output, h, c = R.mkldnn_lstm(input, hx[0], hx[1], params, self.num_layers,
                                         self.dropout, self.training, self.bidirectional,
                                         self.batch_first)
        else:
            if self.proj_size > 0 and float32 and packing is None:
                warnings.warn("LSTM with projections is not supported with oneDNN. Using "
                              "default implementation.", UserWarning, stacklevel=2)
            transpose = self.batch_first and packing is None
            x = input.transpose(0, 1) if transpose else input
            hiddens = list(zip(hx[0].unbind(0), hx[1].unbind(0)))
            cell = self._layer(lambda x, hc, p: R.lstm_cell(x, hc, p, pre_computed=True),
                               packing)
            output, finals = R.run_layers(cell, x, hiddens, params, self.num_layers,
                                          self.dropout, self.training, self.bidirectional)
            if transpose:
                output = output.transpose(0, 1)
            h = api.stack([f[0] for f in finals], 0)
            c = api.stack([f[1] for f in finals], 0)
        return self._pack(output, (h, c), batched, packing)


# -- cells -----------------------------------------------------------------------------------------

class RNNCellBase(Module):
    """What the cells share: ``weight_ih``, ``weight_hh``, ``bias_ih``, ``bias_hh``."""

    _torch_class_name = "torch.nn.modules.rnn.RNNCellBase"
    _label = "RNNCell"

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device=None, dtype=None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(creation.empty((num_chunks * hidden_size, input_size),
                                                  dtype=dtype))
        self.weight_hh = Parameter(creation.empty((num_chunks * hidden_size, hidden_size),
                                                  dtype=dtype))
        if bias:
            self.bias_ih = Parameter(creation.empty(num_chunks * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(creation.empty(num_chunks * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _uniform_all(self, self.hidden_size)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _params(self):
        return R.CellParams(self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)

    def _batched(self, input, hx, hidden_label: str):
        """(input, [hidden...], is_batched), checked with PyTorch's messages."""
        label = self._label
        if input.dim() not in (1, 2):
            raise ValueError(f"{label}: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        hs = [] if hx is None else ([hx] if hidden_label == "hidden" else list(hx))
        for idx, h in enumerate(hs):
            if h.dim() not in (1, 2):
                shown = "hidden" if hidden_label == "hidden" else f"hx[{idx}]"
                raise ValueError(f"{label}: Expected {shown} to be 1D or 2D, got {h.dim()}D "
                                 "instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
            hs = [h.unsqueeze(0) for h in hs]
        if not hs:
            zeros = creation.zeros(input.size(0), self.hidden_size, dtype=input.dtype)
            hs = [zeros] * (1 if hidden_label == "hidden" else 2)
        self._check_shapes(input, hs)
        return input, hs, batched

    def _check_shapes(self, input, hs) -> None:
        if input.size(1) != self.weight_ih.size(1):
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected "
                               f"{self.weight_ih.size(1)}")
        for k, h in enumerate(hs):
            label = k
            if input.size(0) != h.size(0):
                raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{label}"
                                   f" batch size {h.size(0)}")
            if h.size(1) != self.hidden_size:
                raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got "
                                   f"{h.size(1)}, expected {self.hidden_size}")


class RNNCell(RNNCellBase):
    """One step of an Elman RNN."""

    _torch_class_name = "torch.nn.modules.rnn.RNNCell"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, (h,), batched = self._batched(input, hx, "hidden")
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        out = R.rnn_cell(input, h, self._params(), self.nonlinearity)
        return out if batched else out.squeeze(0)


class _GatedCell(RNNCellBase):
    _num_chunks = 1

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, self._num_chunks, dtype=dtype)


class LSTMCell(_GatedCell):
    """One LSTM step: ``(h_1, c_1) = cell(input, (h_0, c_0))``."""

    _torch_class_name = "torch.nn.modules.rnn.LSTMCell"
    _label = "LSTMCell"
    _num_chunks = 4

    def forward(self, input, hx=None):
        input, hs, batched = self._batched(input, hx, "hx")
        h, c = R.lstm_cell(input, tuple(hs), self._params())
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(_GatedCell):
    """One GRU step."""

    _torch_class_name = "torch.nn.modules.rnn.GRUCell"
    _label = "GRUCell"
    _num_chunks = 3

    def forward(self, input, hx=None):
        input, (h,), batched = self._batched(input, hx, "hidden")
        out = R.gru_cell(input, h, self._params())
        return out if batched else out.squeeze(0)
