"""Graph files (``.gstep``): gradstep's documented, versioned JSON format, read and written safely.

``load(path)`` and ``loads(text)`` parse and validate -- nothing is executed -- and raise a single
GraphFileError naming the field (or line and column); ``save(path, gf)`` writes atomically;
``dumps(gf)`` gives the text. ``capture_state``/``restore_state`` move a script's tensors and
optimizers into and out of a SavedState. Submodules: ``recovery`` (autosave, offered back after a
crash) and ``npz`` (gradient buffers as ``.npz``); ``example_paths()`` lists the bundled
examples. The format: docs/gstep-format.md and resources/gstep.schema.json.
"""

from __future__ import annotations

from . import npz, recovery
from .errors import GraphFileError
from .format import (
    FORMAT_NAME,
    FORMAT_VERSION,
    Breakpoint,
    DataBreakpoints,
    GraphFile,
    Recorded,
    RecordedEdge,
    RecordedNode,
    SavedOptimizer,
    SavedState,
    SavedTensor,
    Settings,
    ViewState,
)
from .gallery import EXAMPLES_DIR, example_paths
from .io import dumps, load, loads, save, write_atomic
from .limits import DEFAULT_LIMITS, ReadLimits
from .snapshot import capture_state, restore_state

__all__ = [
    "FORMAT_NAME", "FORMAT_VERSION", "Breakpoint", "DataBreakpoints", "DEFAULT_LIMITS",
    "EXAMPLES_DIR", "GraphFile", "GraphFileError", "ReadLimits", "Recorded", "RecordedEdge",
    "RecordedNode",
    "SavedOptimizer", "SavedState", "SavedTensor", "Settings", "ViewState", "capture_state",
    "dumps", "example_paths", "load", "loads", "npz", "recovery", "restore_state", "save",
    "write_atomic",
]
