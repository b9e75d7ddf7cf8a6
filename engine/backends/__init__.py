"""``torch.backends`` on PyTorch's CPU-only build: no MPS, no cuDNN (``cudnn``'s flags keep
PyTorch's defaults and may be set, as scripts do)."""

from . import cudnn, mps

__all__ = ["cudnn", "mps"]
