"""The builder's widgets (issue 8): the Build dock's op palette, the forms that write a new
tensor, an optimizer or a training loop, and the graph's context menu for a tensor.

Every gesture produces an ``engine.builder.edits.CodeEdit``; the window applies it to the editor
and re-runs. See ``docs/builder.md``.
"""

from .panel import BuildPanel

__all__ = ["BuildPanel"]
