"""``nn.utils.rnn``: packed sequences (``torch/nn/utils/rnn.py`` and its ATen kernels).

``pack_padded_sequence`` records PyTorch's ``PackPaddedSequenceBackward0``; padding back writes
slices into a full tensor (``CopySlices``), as ``_pad_packed_sequence`` and ``pad_sequence`` do.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ... import creation, dtypes
from ...ops.dispatch import apply
from ...ops.layers import batch_sizes_of
from ...ops.table import OPS
from ...tensor import Tensor, TorchNamedMeta


def _as_lengths(lengths):
    if isinstance(lengths, Tensor):
        return lengths.to(dtype=dtypes.int64)
    return creation.as_tensor(lengths, dtype=dtypes.int64)


def _full(shape, value, dtype):
    """``at::full``: an empty tensor filled in place (its version counter at 1, as PyTorch's)."""
    return creation.empty(shape, dtype=dtype).fill_(value)


def invert_permutation(permutation):
    """The permutation that undoes ``permutation`` (None for None)."""
    if permutation is None:
        return None
    inverse = np.empty_like(permutation._data)
    inverse[permutation._data] = np.arange(permutation._data.size)
    # PyTorch scatters into an empty tensor: one in-place write on its version counter
    return creation.empty_like(permutation).copy_(Tensor._wrap(inverse))


class PackedSequence(namedtuple("PackedSequence",
                                ["data", "batch_sizes", "sorted_indices", "unsorted_indices"]),
                     metaclass=TorchNamedMeta):
    """Sequences of different lengths packed step by step: ``data`` holds step t's elements of
    the ``batch_sizes[t]`` sequences still running, longest first."""

    __slots__ = ()
    _torch_class_name = "torch.nn.utils.rnn.PackedSequence"

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        return self if data is self.data else type(self)(data, self.batch_sizes,
                                                          self.sorted_indices,
                                                          self.unsorted_indices)

    @property
    def is_cuda(self) -> bool:
        return False

    def is_pinned(self) -> bool:
        return False


def pack_padded_sequence(input, lengths, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded (T, B, *) batch (B, T, * with ``batch_first``) of sequences of
    ``lengths``; unsorted lengths are sorted (longest first) unless ``enforce_sorted``."""
    lengths = _as_lengths(lengths)
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = lengths.sort(descending=True)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    lens = [int(v) for v in lengths._data]
    batch = input.shape[0 if batch_first else 1]
    if len(lens) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(lens)} (batch_size={batch})")
    if lens and lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element "
                           "in 'lengths' that is <= 0")
    if any(a < b for a, b in zip(lens, lens[1:])):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
            "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
            "sidestep this requirement if you do not need ONNX exportability.")
    data = apply(OPS["pack_padded_sequence"], input, lengths=tuple(lens),
                 batch_first=bool(batch_first), shape=tuple(input.shape))
    counts = np.array(batch_sizes_of(lens), dtype=np.int64)
    return PackedSequence(data, Tensor._wrap(counts), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length=None):
    """(padded batch, lengths): the inverse of ``pack_padded_sequence``."""
    sizes = [int(v) for v in sequence.batch_sizes._data]
    steps = len(sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {steps}")
        steps = total_length
    data = sequence.data
    out = _full((steps, sizes[0], *data.shape[1:]), padding_value, data.dtype)
    lengths = np.empty(sizes[0], dtype=np.int64)
    offset, prev_size, prev_i = 0, sizes[0], 0
    # runs of equal batch size are copied in one block, as ATen's kernel does
    for i in range(len(sizes) + 1):
        size = sizes[i] if i < len(sizes) else 0
        if size != prev_size:
            n = prev_size * (i - prev_i)
            block = data[offset:offset + n].view(i - prev_i, prev_size, *data.shape[1:])
            out[prev_i:i, :prev_size] = block
            offset += n
            prev_i = i
        lengths[size:prev_size] = i
        prev_size = size
    if batch_first:
        out = out.transpose(0, 1)
    lengths_t = Tensor._wrap(lengths)
    if sequence.unsorted_indices is not None:
        order = sequence.unsorted_indices
        return out.index_select(0 if batch_first else 1, order), \
            Tensor._wrap(lengths[order._data])
    return out, lengths_t


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right"):
    """Stack sequences of different lengths into one padded (T, B, *) tensor."""
    try:
        sequences = tuple(sequences)
    except TypeError:
        raise RuntimeError("pad_sequence(): Expected iterable for input sequences, but got arg "
                           f"of type: {type(sequences)}") from None
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got "
                         f"{padding_side}.")
    max_len = max(s.size(0) for s in sequences)
    trailing = tuple(sequences[0].shape[1:])
    dims = (len(sequences), max_len) if batch_first else (max_len, len(sequences))
    out = _full(dims + trailing, padding_value, sequences[0].dtype)
    for i, seq in enumerate(sequences):
        n = seq.size(0)
        start = max_len - n if padding_side == "left" else 0
        if batch_first:
            out[i, start:start + n] = seq
        else:
            out[start:start + n, i] = seq
    return out


def unpad_sequence(padded_sequences, lengths, batch_first: bool = False) -> list:
    """The sequences of a padded batch, each cut to its length."""
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    idx = creation.arange(padded_sequences.shape[1])
    return [seq[idx < length] for seq, length in zip(padded_sequences, lengths)]


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences (longest first unless ``enforce_sorted`` is False)."""
    lengths = creation.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences) -> list:
    """The list of sequences a PackedSequence holds."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
