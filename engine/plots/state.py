"""``PlotState``: the figures of one script run, and what has been shown of them.

The pyplot stand-in (``engine/plots/pyplot.py``) draws into the run's state; ``show()`` takes a
snapshot (``model.Figure``) of every open figure and closes them, as matplotlib's ``show`` does
once its windows are closed; the end of the run shows the figures still open (as a notebook
does). ``figures()`` is what has been shown, in the order the figures were made;
``on_change(figures, line)`` hears each change (the session sends it as ``FiguresChanged``).

Bounds (a ``limit`` ScriptError past them): ``MAX_FIGURES`` figures made in a run,
``MAX_FIGURE_POINTS`` points in one figure (a line of n points, an image of n pixels, a histogram
of n bins count n), ``MAX_RUN_POINTS`` points held by all the run's figures.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

from ..script.errors import limit

MAX_FIGURES = 50
MAX_FIGURE_POINTS = 500_000
MAX_RUN_POINTS = 2_000_000


class PlotState:
    def __init__(self, on_change: Callable | None = None) -> None:
        self._on_change = on_change
        self._line = lambda: None  # the line running now (pyplot's build sets it)
        self.reset()

    def reset(self) -> None:
        self._open: dict = {}  # number -> FigureHandle, in creation order
        self._current = None  # FigureHandle
        self._created = 0
        self._shown: dict = {}  # uid -> model.Figure
        self._changed = False

    # -- reading ---------------------------------------------------------------------------------
    def figures(self) -> tuple:
        """The figures shown so far in this run (``model.Figure``), in the order they were
        made."""
        return tuple(sorted(self._shown.values(), key=lambda f: f.uid))

    def open_figures(self) -> list:
        return list(self._open.values())

    # -- figures ---------------------------------------------------------------------------------
    def new_figure(self, handle_factory, number=None, **kwargs):
        if self._created >= MAX_FIGURES:
            raise limit(f"too many figures: a run may make {MAX_FIGURES} (gradstep's limit); "
                        "reuse one (plt.clf()) instead of making a figure per iteration")
        self._created += 1
        if number is None:
            number = max(self._open, default=0) + 1
        fig = handle_factory(self, number, self._created, **kwargs)
        self._open[number] = fig
        self._current = fig
        return fig

    def current(self, handle_factory):
        if self._current is None:
            return self.new_figure(handle_factory)
        return self._current

    def activate(self, fig) -> None:
        self._current = fig

    def close(self, fig) -> None:
        if self._open.get(fig._number) is fig:
            del self._open[fig._number]
        if self._current is fig:
            self._current = next(reversed(self._open.values()), None)

    def close_all(self) -> None:
        self._open.clear()
        self._current = None

    # -- limits ----------------------------------------------------------------------------------
    def check_room(self, fig, n: int) -> None:
        """Refuse ``n`` more points in ``fig`` past the per-figure or per-run bound."""
        have = fig._points()
        if have + n > MAX_FIGURE_POINTS:
            raise limit(f"too many points in figure {fig._number}: {have + n} (gradstep's limit "
                        f"is {MAX_FIGURE_POINTS} per figure)")
        held = sum(f._points() for f in self._open.values()) + sum(
            f.points for uid, f in self._shown.items()
            if not any(o._uid == uid for o in self._open.values()))
        if held + n > MAX_RUN_POINTS:
            raise limit(f"too many points in the run's figures: {held + n} (gradstep's limit is "
                        f"{MAX_RUN_POINTS})")

    # -- showing ---------------------------------------------------------------------------------
    def show_figure(self, fig, line) -> None:
        """Show ``fig`` as it is now (savefig, pause, draw): it stays open."""
        self._shown[fig._uid] = fig._snapshot(line)
        self._notify(line)

    def show(self, line) -> None:
        """``plt.show()``: every open figure is shown, then closed."""
        for fig in list(self._open.values()):
            self._shown[fig._uid] = fig._snapshot(line)
        self.close_all()
        self._notify(line)

    def finish(self) -> bool:
        """The run ended: show the figures still open (drawn but never shown). True if that
        changed what is shown."""
        changed = False
        for fig in list(self._open.values()):
            if fig._axes or fig._suptitle:
                snap = fig._snapshot(None)
                old = self._shown.get(fig._uid)
                if old is None or fig._dirty:
                    self._shown[fig._uid] = snap
                    changed = True
                fig._dirty = False
        self.close_all()
        if changed:
            self._notify(None)
        return changed

    def _notify(self, line) -> None:
        if self._on_change is not None:
            self._on_change(self.figures(), line)


# the state each interpreter's pyplot draws into (a session attaches one per run)
_STATES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def attach(interp, on_change: Callable | None = None) -> PlotState:
    """Give ``interp``'s script a fresh ``PlotState`` (``on_change(figures, line)`` hears it)."""
    state = _STATES[interp] = PlotState(on_change)
    return state


def state_of(interp) -> PlotState:
    """The ``PlotState`` of ``interp`` (made on first use)."""
    state = _STATES.get(interp)
    if state is None:
        state = _STATES[interp] = PlotState()
    return state


def figures_of(interp) -> tuple:
    """What ``interp``'s script has shown (after its run: the figures it left open too)."""
    state = _STATES.get(interp)
    return state.figures() if state is not None else ()
