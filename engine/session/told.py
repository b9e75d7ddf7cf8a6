"""What the script's worker process tells the window's panels: ``PanelsTeller``.

The panels' recorder (``panels_model.PanelsRecorder``) runs in the worker, next to the session,
attached to the engine there. At every point at rest the teller turns what the panels draw into
plain data (``wire.PanelsData``: each buffer's story, the optimizers and their latest steps, the
predict panel's questions, the training curves), the way a recording's replay tells it, so the
window's panels read it with the same models (``buffer_rows``, ``optimizer_rows``, ...). What
did not change since the last telling is not told again: ``same`` stories and optimizers, the
curves' new points only.
"""

from __future__ import annotations

from .panels_model import PanelsRecorder, names_by_id, predictions
from .panels_model.buffers import told_stories
from .panels_model.optimizer import told_optimizers
from .state import Snapshot, named_tensors
from .wire import HistorySender, PanelsData


class PanelsTeller:
    def __init__(self, session) -> None:
        self.session = session
        self.recorder = PanelsRecorder(lambda: session.counters.backward).attach()
        self.history = HistorySender()
        self.names: dict = {}  # id(tensor) -> display name at the last rest (the curves' names)
        # what was told last: (recorder version, snapshot, tensors, optimizers); it keeps them
        # alive, so an id seen there is never a newer object's
        self._last = None
        self._stories: dict = {}  # what each story was told from (told_stories keeps it)
        self._steps: dict = {}  # the steps told (told_optimizers keeps it)

    def follow(self, event) -> None:
        self.recorder.follow(event)

    def at_rest(self, event, live, tensors=None) -> PanelsData:
        """The panels' data at the point ``event`` (Paused, Finished, Error) shows; ``live``:
        the script's names there (``tensors``: ``named_tensors(live)``, if known)."""
        snapshot = getattr(event, "snapshot", None)
        if not isinstance(snapshot, Snapshot):
            snapshot = Snapshot()
        if tensors is None:
            tensors = named_tensors(live)
        names: dict = {}
        for name, t in tensors.items():
            names.setdefault(id(t), name)
        self.names = names
        pause = getattr(event, "pause", None)
        stmt = pause.stmt if pause is not None and pause.kind == "statement" else None
        asked = tuple(predictions(stmt, live, tensors))
        rec = self.recorder
        with rec.lock:
            rec.history.learn_names(names)  # the curves keep these names (training.py)
            last = self._last
            steps = dict(self._steps)
            optimizers, told_steps = told_optimizers(live, tensors, rec.steps, self._steps)
            now = self._last = (rec.version, snapshot, tensors, optimizers)
            if last is not None and _same_telling(last, now):
                self._steps = steps  # nothing was told: the window has the steps before
                return PanelsData(True, True, predictions=asked, history=self._curves())
            stories = told_stories(snapshot, tensors, rec.ledger, self._stories)
            return PanelsData(True, False, stories, optimizers, told_steps, asked,
                              self._curves())

    def running(self) -> PanelsData | None:
        """The training curves' news while the script runs (None: nothing new)."""
        with self.recorder.lock:
            history = self.recorder.history
            if history.unnamed(self.names):  # a model made since the last rest: name its curves
                self.names = names_by_id(self.session.visible_names())
            history.learn_names(self.names)
            data = self._curves()
        return None if data is None else PanelsData(history=data)

    def _curves(self):
        return self.history.data(self.recorder.history, self.names)


def _same_telling(last: tuple, now: tuple) -> bool:
    """Nothing the panels draw changed: no engine event since, the same names for the same
    tensors, the same records in the snapshot (a session shares unchanged ones), the same
    optimizers' hyper-parameters."""
    (version, snap, tensors, optimizers), (version2, snap2, tensors2, optimizers2) = last, now
    if version != version2 or list(tensors) != list(tensors2) or list(snap.tensors) != list(
            snap2.tensors):
        return False
    if any(tensors[k] is not t for k, t in tensors2.items()):
        return False
    if any(snap.tensors[k] is not r for k, r in snap2.tensors.items()):
        return False
    try:
        return bool(optimizers == optimizers2)
    except ValueError:  # a hyper-parameter that is an array
        return False
