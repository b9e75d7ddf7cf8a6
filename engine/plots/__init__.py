"""Figures drawn by a script's ``matplotlib.pyplot`` (a debugger part, Qt-free).

``model`` holds the figure model (plain frozen dataclasses: ``Figure`` -> ``Axes`` -> ``Line``,
``Scatter``, ``Histogram``, ``Bars``, ``RefLine``, ``Image``), ``pyplot`` the stand-in module a
script imports, ``state`` a run's figures (``PlotState``, ``attach``, ``state_of``,
``figures_of``) and ``styles`` matplotlib's colours and format strings. The window draws the
figures (``app/panels/plots.py``); ``gradstep run`` describes them (``model.describe``).
"""

from .model import (
    Axes,
    Bars,
    Figure,
    Histogram,
    Image,
    Line,
    RefLine,
    Scatter,
    describe,
    figure_json,
)
from .state import MAX_FIGURE_POINTS, MAX_FIGURES, MAX_RUN_POINTS, PlotState, attach, figures_of

__all__ = ["Axes", "Bars", "Figure", "Histogram", "Image", "Line", "RefLine", "Scatter",
           "describe", "figure_json", "PlotState", "attach", "figures_of", "MAX_FIGURES",
           "MAX_FIGURE_POINTS", "MAX_RUN_POINTS"]
