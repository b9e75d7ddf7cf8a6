"""How gradstep keeps Python's garbage collector from dominating graph building.

The engine's graph has no reference cycles (see ``autograd/node.py``), so reference counting frees
it; the cyclic collector only ever finds nothing. But every full collection walks every tracked
object in the process, and Qt's and numpy's imports leave ~200,000 of them: with a large graph
being built, full collections come often and cost ~3x the engine's own work. Moving the objects
that exist right after start-up into the collector's permanent generation (``gc.freeze``) takes
them out of every later collection. The app's launcher calls this after building the window
(and again once the panels have imported pyqtgraph); the CLI once, before running a script.
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager

_pause_lock = threading.Lock()
_pauses = 0  # blocks inside collector_paused(), across threads
_was_enabled = True


def settle_after_imports() -> None:
    """Collect once, then freeze everything alive now.

    Safe to call again after more imports: frozen objects are still freed by reference counting;
    only the cyclic collector stops walking them, and the collection before the freeze makes sure
    no unreachable cycle is frozen (and so leaked).
    """
    gc.collect()
    gc.freeze()


LARGE_BUILD_NODES = 10_000
"""A graph this large (a recording, its graph model) is frozen out of collections once built."""


def keep_if_large(nodes: int) -> None:
    """``keep_out_of_collections()`` after building a graph of ``nodes`` nodes, if that is
    ``LARGE_BUILD_NODES`` or more: small builds are left to the collector as usual."""
    if nodes >= LARGE_BUILD_NODES:
        gc.freeze()


def keep_out_of_collections() -> None:
    """Freeze everything alive now, without collecting first: for right after building something
    large that lives on (a 100,000-node recording opened: 1.3 million objects).

    Built with the collector paused, such objects all sit in the young generations, and the next
    young collection walks every one of them (seconds), then every full one again. Frozen, they
    are still freed by reference counting when dropped (they hold no cycles); the price is that
    cyclic garbage alive at this moment is never collected, so this is for rare, large builds
    only. Unlike ``gc.collect``, ``gc.freeze`` runs no destructor: safe on any thread.
    """
    gc.freeze()


@contextmanager
def collector_paused():
    """Keep the cyclic collector off for the block, however many threads nest such blocks; the
    last one out turns it back on if it was on before the first one came in.

    Graph building and layout allocate tens of thousands of small objects and create no cycles,
    and a debugger command runs the script on the session's thread: a collection the window's
    thread starts then would walk the session thread's suspended greenlets while that thread
    runs, which crashes the interpreter (seen under Python 3.11 with greenlet 3.5). Reference
    counting still frees everything; cycles wait until the collector is back.
    """
    global _pauses, _was_enabled
    with _pause_lock:
        if _pauses == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _pause_lock:
            _pauses -= 1
            if _pauses == 0 and _was_enabled:
                gc.enable()

