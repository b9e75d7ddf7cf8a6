"""``Flatten``: folds dimensions ``start_dim..end_dim`` into one."""

from __future__ import annotations

from .module import Module


class Flatten(Module):
    """Flatten a contiguous range of dimensions (by default all but the batch dimension)."""

    _torch_class_name = "torch.nn.modules.flatten.Flatten"

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"
