"""What the buffer, optimizer, training, timeline and predict panels show, computed without Qt.

The panels only render; every number they show comes from here. Three sources feed it:

- the session's ``Snapshot`` at a pause (copies of every named tensor and of the optimizer state),
  which is also what time travel shows;
- the script's live names at a pause (its modules' and optimizers' hyper-parameters);
- the engine's events (``engine.events.hub``), recorded by ``PanelsRecorder`` while the script
  runs, because some facts leave no trace in any snapshot: which backward call added what to a
  ``.grad``, which paths met at a fan-in, what a parameter and its optimizer state were just before
  ``optimizer.step()``.

Time travel re-executes the script up to the chosen point, so what the recorder holds is always
the story of the live state; it starts over whenever the script does.

Modules: ``buffers`` (ledger and buffer rows), ``optimizer`` (step log, update rules, optimizer
rows), ``training`` (loss, grad norms, update ratios), ``compare`` (two timeline points),
``predict`` (predict mode), ``recorder`` (the event listener), ``replay`` (what a recording's
replay tells in place of the events), ``arrays`` and ``csv_export``.
"""

from .arrays import as_image, format_array, heatmap_level, norm
from .buffers import (
    MAX_HISTORY,
    MAX_SHOWN,
    ZERO_GRAD_NOTE,
    BufferLedger,
    BufferRow,
    BufferState,
    Contribution,
    buffer_rows,
    buffer_table,
    folded,
    group_of,
    has_buffer,
)
from .compare import DeltaRow, compare, compare_table
from .csv_export import Table, csv_text
from .optimizer import (
    STEP_NOTE,
    GroupRows,
    ParamRow,
    StepLog,
    StepRecord,
    Term,
    UpdateRule,
    optimizer_rows,
    optimizer_table,
    state_arrays,
    update_rule,
)
from .predict import Prediction, check_guess, predictions, resolve
from .recorder import PanelsRecorder
from .replay import ReplayFeed, ReplayOptimizer
from .training import TrainingHistory, names_by_id, training_table

__all__ = [
    "MAX_HISTORY", "MAX_SHOWN", "STEP_NOTE", "ZERO_GRAD_NOTE", "BufferLedger", "BufferRow",
    "BufferState", "Contribution", "DeltaRow", "GroupRows", "PanelsRecorder", "ParamRow",
    "Prediction", "ReplayFeed", "ReplayOptimizer", "StepLog", "StepRecord", "Table", "Term",
    "TrainingHistory", "UpdateRule",
    "as_image", "buffer_rows", "buffer_table", "check_guess", "compare", "compare_table",
    "csv_text", "folded", "format_array", "group_of", "has_buffer", "heatmap_level",
    "names_by_id", "norm", "optimizer_rows", "optimizer_table", "predictions", "resolve",
    "state_arrays", "training_table", "update_rule",
]
