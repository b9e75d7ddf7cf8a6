"""``torch.utils.data``: datasets, samplers, ``DataLoader`` and ``default_collate``, as PyTorch 2.x.

The samplers draw their random numbers through the engine's public API in PyTorch's order
(``torch.empty((), dtype=torch.int64).random_()``, ``torch.Generator().manual_seed(...)``,
``torch.randperm(n, generator=...)``), so a shuffle gives PyTorch's order whenever the engine's
random stream is PyTorch's. Loading always happens in the calling process: ``num_workers > 0`` is
accepted (tutorials pass it) but no worker process is started (see ``dataloader.py``).
"""

from .dataloader import DataLoader, _DatasetKind, default_collate, default_convert, get_worker_info
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "StackDataset",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "_DatasetKind",
    "default_collate",
    "default_convert",
    "get_worker_info",
    "random_split",
]
