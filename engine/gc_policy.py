"""How gradstep keeps Python's garbage collector from dominating graph building.

The engine's graph has no reference cycles (see ``autograd/node.py``), so reference counting frees
it; the cyclic collector only ever finds nothing. But every full collection walks every tracked
object in the process, and Qt's and numpy's imports leave ~200,000 of them: with a large graph
being built, full collections come often and cost ~3x the engine's own work. Moving the objects
that exist right after start-up into the collector's permanent generation (``gc.freeze``) takes
them out of every later collection. The app's launcher calls this after building the window (and again
once the panels have imported pyqtgraph); the CLI once, before running a script.
"""

from __future__ import annotations

import gc


def settle_after_imports() -> None:
    """Collect once, then freeze everything alive now.

    Safe to call again after more imports: frozen objects are still freed by reference counting;
    only the cyclic collector stops walking them, and the collection before the freeze makes sure
    no unreachable cycle is frozen (and so leaked).
    """
    gc.collect()
    gc.freeze()
