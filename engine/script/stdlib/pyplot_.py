"""``import matplotlib.pyplot as plt``: gradstep's stand-in (``engine/plots/pyplot.py``), drawing
into the run's figures (``engine.plots.state_of(interp)``), which the Plots panel shows."""

from __future__ import annotations

MISSING_NOTE = ("gradstep's pyplot has plot, scatter, hist, imshow, bar, axhline/axvline, "
                "title, xlabel/ylabel, legend, grid, subplot(s), figure, show, close, clf...")


def build(interp) -> dict:
    from ...plots.pyplot import build_pyplot

    return build_pyplot(interp)
