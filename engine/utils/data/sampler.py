"""``torch.utils.data.sampler``: which indices a DataLoader fetches, in PyTorch's order of draws."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Generic, TypeVar

import engine

from . import _random
from ._base import TorchNamed, TorchNamedMeta

__all__ = [
    "BatchSampler",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
]

_T_co = TypeVar("_T_co", covariant=True)


class Sampler(TorchNamed, Generic[_T_co], metaclass=TorchNamedMeta):
    """Base class of all samplers: a subclass provides ``__iter__`` (of indices or of batches of
    indices) and may provide ``__len__`` (no default, as PyTorch: ``list(sampler)`` must not be
    misled by one)."""

    _torch_class_name = "torch.utils.data.sampler.Sampler"

    def __iter__(self) -> Iterator[_T_co]:
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """Samples elements sequentially, always in the same order."""

    _torch_class_name = "torch.utils.data.sampler.SequentialSampler"

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """Samples elements randomly: a permutation (``replacement=False``) or ``num_samples`` draws
    with replacement. Without a ``generator`` each iteration seeds a fresh Generator from the
    global stream, as PyTorch does."""

    _torch_class_name = "torch.utils.data.sampler.RandomSampler"

    def __init__(self, data_source: Sized, replacement: bool = False,
                 num_samples: int | None = None, generator=None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator

        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            f"replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        # the dataset's size may change at run time
        if self._num_samples is None:
            return len(self.data_source)
        return self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        if self.generator is None:
            seed = _random.random_int64()
            generator = _random.seeded_generator(seed)
        else:
            generator = self.generator

        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from _random.randint(n, 32, generator)
            yield from _random.randint(n, self.num_samples % 32, generator)
        else:
            for _ in range(self.num_samples // n):
                yield from _random.randperm(n, generator)
            yield from _random.randperm(n, generator)[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """Samples elements randomly from a given list of indices, without replacement."""

    _torch_class_name = "torch.utils.data.sampler.SubsetRandomSampler"

    def __init__(self, indices: Sequence[int], generator=None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in _random.randperm(len(self.indices), self.generator):
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """Samples ``[0, len(weights))`` with the given (unnormalised) probabilities. Draws PyTorch's
    indices only once the engine has ``torch.multinomial``; until then, the same distribution."""

    _torch_class_name = "torch.utils.data.sampler.WeightedRandomSampler"

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True,
                 generator=None) -> None:
        if (not isinstance(num_samples, int) or isinstance(num_samples, bool)
                or num_samples <= 0):
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got "
                             f"replacement={replacement}")

        weights_tensor = engine.as_tensor(weights, dtype=engine.double)
        if len(weights_tensor.shape) != 1:
            raise ValueError("weights should be a 1d sequence but given "
                             f"weights have shape {tuple(weights_tensor.shape)}")

        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        yield from _random.multinomial(self.weights, self.num_samples, self.replacement,
                                       self.generator)

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[list[int]]):
    """Wraps another sampler (any iterable of indices) to yield lists of ``batch_size`` indices."""

    _torch_class_name = "torch.utils.data.sampler.BatchSampler"

    def __init__(self, sampler: Sampler[int] | Iterable[int], batch_size: int,
                 drop_last: bool) -> None:
        if (not isinstance(batch_size, int) or isinstance(batch_size, bool)
                or batch_size <= 0):
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(
                f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        sampler_iter = iter(self.sampler)
        if self.drop_last:
            # batch_size references to one iterator: zip stops at the first short batch
            args = [sampler_iter] * self.batch_size
            for batch_droplast in zip(*args):
                yield [*batch_droplast]
        else:
            batch = [*itertools.islice(sampler_iter, self.batch_size)]
            while batch:
                yield batch
                batch = [*itertools.islice(sampler_iter, self.batch_size)]

    def __len__(self) -> int:
        # only for a sampler with a __len__, as PyTorch
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
