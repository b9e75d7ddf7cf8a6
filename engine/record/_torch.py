"""The one place the recorder imports torch, lazily: ``import engine.record`` works without it."""

from __future__ import annotations


def require_torch():
    """Return the ``torch`` module, or raise ImportError saying how to get it.

    Raises
    ------
    ImportError
        When PyTorch is not installed (``pip install gradstep[torch]``).
    """
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("engine.record needs PyTorch: pip install gradstep[torch]") from exc
    return torch
