"""``torch.utils.data._utils``: the collate functions and the dataset fetchers."""

from . import collate, fetch

__all__ = ["collate", "fetch"]
