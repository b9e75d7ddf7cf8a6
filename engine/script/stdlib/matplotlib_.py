"""``import matplotlib``: its ``pyplot`` (gradstep's stand-in, ``engine/plots/``) and ``use()``,
accepted as a no-op (``matplotlib.use('Agg')``)."""

from __future__ import annotations

MISSING_NOTE = "gradstep's matplotlib has pyplot, use() and rcParams"


def build(interp) -> dict:
    from ...plots.pyplot import build_matplotlib
    from . import stdlib_module

    return build_matplotlib(interp, stdlib_module("matplotlib.pyplot", interp))
