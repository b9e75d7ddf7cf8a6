"""What the buffer, optimizer, training and timeline panels show, computed without Qt.

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
"""

from __future__ import annotations

import csv
import io
import threading
import weakref
from array import array
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

import numpy as np

from .. import events
from ..autograd.node import AccumulateGrad
from .state import Snapshot, TensorRecord, is_optimizer, named_tensors

MAX_HISTORY = 128  # writes kept per tensor: a loop without zero_grad() adds one per iteration
MAX_SHOWN = 8  # contributions listed per buffer; older ones are shown folded into one
ZERO_GRAD_NOTE = (
    "zero_grad() sets .grad to None by default (set_to_none=True): no memory is kept and "
    "optimizers skip a parameter whose .grad is None. With set_to_none=False it fills zeros "
    "instead, and the parameter still takes a step (weight decay and momentum keep moving it)."
)
STEP_NOTE = (
    "optimizer.step() reads each parameter's .grad and updates the parameter and the optimizer "
    "state; it does not clear .grad. Only zero_grad() does, so without it the next backward() "
    "adds to the old gradient."
)


def _norm(a) -> float:
    return float(np.linalg.norm(np.asarray(a, dtype=np.float64).ravel()))


def group_of(name: str) -> str:
    """The module path of a display name: ``model.fc1.weight`` -> ``model.fc1``; ``w`` -> ``""``."""
    return name.rpartition(".")[0]


# ---------------------------------------------------------------- the buffer ledger


@dataclass(frozen=True)
class Contribution:
    """What one backward call (or a folded run of them) added into a ``.grad`` buffer."""

    first_call: int  # backward calls are numbered from 1 since the recorder attached
    last_call: int  # == first_call unless older contributions were folded together
    value: np.ndarray
    # at a fan-in (the tensor used twice, e.g. t1 * t1): the gradient of each incoming path as
    # (sending node's name, array); they sum to ``value`` unless a hook changed it
    paths: tuple[tuple[str, np.ndarray], ...] = ()

    @property
    def label(self) -> str:
        if self.first_call == self.last_call:
            return f"backward #{self.first_call}"
        return f"backward #{self.first_call}–#{self.last_call}"


class _History:
    __slots__ = ("ref", "entries", "dropped")

    def __init__(self, tensor) -> None:
        self.ref = weakref.ref(tensor)
        # (kind, call, value, paths); kind "add", or "none"/"zeros" for a zero_grad()
        self.entries: list[tuple] = []
        self.dropped = False  # the oldest entries were dropped (MAX_HISTORY)


@dataclass(frozen=True)
class BufferState:
    """A buffer's story at one moment: how it was last reset and what was added since."""

    reset_as: str | None  # "none" / "zeros": the last zero_grad(); None: never reset
    contributions: tuple[Contribution, ...]
    complete: bool  # False when older writes were not recorded (or were dropped)


class BufferLedger:
    """Every write into every ``.grad``: contributions per backward call and zero_grad() resets."""

    def __init__(self) -> None:
        self.calls = 0
        self._histories: dict[int, _History] = {}
        self._paths: dict[int, list[tuple[str, np.ndarray]]] = {}

    def handle(self, event: events.Event) -> None:
        kind, p = event.kind, event.payload
        if kind == events.BACKWARD_STARTED:
            self.calls += 1
            self._paths.clear()
        elif kind == events.BACKWARD_STEP:
            self._note_step(p["step"])
        elif kind == events.GRAD_ACCUMULATED:
            t = p["tensor"]
            paths = self._paths.pop(id(t), ())
            self._append(t, ("add", self.calls, np.array(p["contribution"], copy=True),
                             tuple(paths) if len(paths) > 1 else ()))
        elif kind == events.GRAD_ZEROED:
            reset = "none" if p["set_to_none"] else "zeros"
            self._append(p["tensor"], (reset, self.calls, None, ()))

    def _note_step(self, step) -> None:
        node = step.node
        for (nxt, _), g in zip(node.next_functions, step.grads_out):
            if g is not None and nxt.__class__ is AccumulateGrad:
                self._paths.setdefault(id(nxt.variable), []).append((node.name(), g))
        retained = getattr(node, "retained", None)
        if retained:  # a retained non-leaf grad is written without a grad_accumulated event
            for nr, ref in retained.items():
                t = ref()
                if t is not None and step.grads_in[nr] is not None:
                    value = np.array(step.grads_in[nr], copy=True)
                    self._append(t, ("add", self.calls, value, ()))

    def _append(self, tensor, entry) -> None:
        h = self._histories.get(id(tensor))
        if h is None or h.ref() is not tensor:  # a new tensor reusing a dead one's id
            h = self._histories[id(tensor)] = _History(tensor)
        h.entries.append(entry)
        if len(h.entries) > MAX_HISTORY:
            del h.entries[: len(h.entries) - MAX_HISTORY]
            h.dropped = True

    def state(self, tensor) -> BufferState:
        """The buffer's story: its last reset and what each backward call added since."""
        h = self._histories.get(id(tensor)) if tensor is not None else None
        if h is None or h.ref() is not tensor:
            return BufferState(None, (), True)
        entries = h.entries
        start = max((i for i, e in enumerate(entries) if e[0] != "add"), default=-1)
        reset_as = entries[start][0] if start >= 0 else None
        merged: list[Contribution] = []
        for _, call, value, paths in entries[start + 1:]:
            if merged and merged[-1].last_call == call:  # two writes in one backward call
                value = merged.pop().value + value
            merged.append(Contribution(call, call, value, paths))
        complete = start >= 0 or not h.dropped
        return BufferState(reset_as, tuple(merged), complete)


def folded(contribs: tuple[Contribution, ...], shown: int = MAX_SHOWN) -> tuple:
    """At most ``shown`` contributions: the oldest ones summed into one folded contribution."""
    if len(contribs) <= shown:
        return contribs
    old = contribs[: len(contribs) - shown + 1]
    total = sum((c.value for c in old[1:]), old[0].value.copy())
    return (Contribution(old[0].first_call, old[-1].last_call, total),) + contribs[len(old):]


# ---------------------------------------------------------------- buffer rows


@dataclass(frozen=True)
class BufferRow:
    name: str
    group: str  # module path ("model.fc1"), "" for plain names
    shape: tuple[int, ...]
    kind: str  # "leaf" or "retained"
    state: str  # "none", "zeros" or "values"
    grad: np.ndarray | None
    norm: float | None
    changed: bool  # since the previous pause shown
    delta: np.ndarray | None  # grad now minus grad before (a None grad counts as 0)
    contributions: tuple[Contribution, ...]  # folded to MAX_SHOWN
    note: str  # one line on how this buffer got its value


def has_buffer(record: TensorRecord) -> bool:
    """A ``.grad`` buffer can exist: a leaf that requires (or holds) grad, or a retained grad."""
    if record.is_leaf:
        return record.requires_grad or record.grad is not None
    return record.retains_grad


def buffer_rows(
    snapshot: Snapshot,
    live: Mapping[str, Any],
    recorder: "PanelsRecorder",
    previous: Iterable[BufferRow] = (),
) -> list[BufferRow]:
    """One row per ``.grad`` buffer in ``snapshot``, grouped by module, in script order.

    ``live`` maps the script's names to its objects (to find the tensors' recorded writes);
    ``previous`` is the rows shown at the previous pause (for "changed").
    """
    before = {r.name: r for r in previous}
    tensors = named_tensors(live)
    rows = []
    with recorder.lock:
        for name, rec in snapshot.tensors.items():
            if not has_buffer(rec):
                continue
            grad = rec.grad
            state = "none" if grad is None else ("zeros" if not np.any(grad) else "values")
            story = recorder.ledger.state(tensors.get(name))
            note, contribs = _buffer_note(grad, story)
            old = before.get(name)
            changed = old is not None and not _same(old.grad, grad)
            delta = None
            if changed and grad is not None and (old.grad is None or old.grad.shape == grad.shape):
                delta = grad.astype(np.float64) - (0 if old.grad is None else old.grad)
            rows.append(BufferRow(
                name, group_of(name), rec.shape, "leaf" if rec.is_leaf else "retained", state,
                grad, None if grad is None else _norm(grad), changed, delta, folded(contribs),
                note,
            ))
    rows.sort(key=lambda r: (r.group == "", r.group))  # stable: script order within a group
    return rows


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is b
    return a.shape == b.shape and np.array_equal(a, b)


def _buffer_note(grad, story: BufferState) -> tuple[str, tuple[Contribution, ...]]:
    contribs = story.contributions
    if grad is None:
        if story.reset_as == "none" and not contribs:
            return "None after zero_grad(set_to_none=True)", ()
        return "None: no backward() has reached it yet", ()
    if not contribs:
        if story.reset_as == "zeros" and not np.any(grad):
            return "zeros after zero_grad(set_to_none=False)", ()
        return "written before recording started", ()
    total = sum((c.value for c in contribs[1:]), contribs[0].value)
    if total.shape != grad.shape or not np.allclose(total, grad, rtol=1e-5, atol=1e-6):
        if not story.complete:
            return "older backward() calls were not all recorded", contribs
        return "changed outside backward() (an in-place write or an assignment to .grad)", ()
    start = "zeros" if story.reset_as == "zeros" else "None"
    if len(contribs) == 1:
        fan = f", {len(contribs[0].paths)} paths added together" if contribs[0].paths else ""
        return f"written by one backward() call (was {start}){fan}", contribs
    return (f"sum of {len(contribs)} backward() calls: .grad accumulates until zero_grad()",
            contribs)


def heatmap_level(arrays: Iterable[np.ndarray | None]) -> float:
    """One symmetric colour scale for all heatmaps: [-level, level] (1.0 if all are zero)."""
    level = 0.0
    for a in arrays:
        if a is not None and a.size:
            finite = np.abs(a[np.isfinite(a)])
            if finite.size:
                level = max(level, float(finite.max()))
    return level or 1.0


def as_image(a: np.ndarray) -> np.ndarray:
    """A tensor as a 2-D image (rows x columns): scalars and vectors become one row."""
    a = np.asarray(a, dtype=np.float64)
    if a.ndim == 0:
        return a.reshape(1, 1)
    if a.ndim == 1:
        return a.reshape(1, -1)
    return a.reshape(-1, a.shape[-1])


# ---------------------------------------------------------------- optimizer steps


@dataclass
class StepRecord:
    """One parameter's update in one ``optimizer.step()`` call, copied as it happened."""

    step_call: int  # optimizer.step() calls are numbered from 1 since the recorder attached
    optimizer: Any
    param: Any
    before: np.ndarray
    after: np.ndarray
    grad: np.ndarray | None
    state_before: dict[str, np.ndarray] | None  # None: first step (or recorded too late)
    state_after: dict[str, np.ndarray]


def _state_copy(optimizer, param) -> dict[str, np.ndarray]:
    state = optimizer.state.get(param, {}) if hasattr(optimizer.state, "get") else {}
    out = {}
    for k, v in state.items():
        v = getattr(v, "_data", v)
        if isinstance(v, (np.ndarray, int, float, np.number)) and not isinstance(v, bool):
            out[str(k)] = np.array(v, dtype=np.float64, copy=True)
    return out


class StepLog:
    """Records ``param_updated`` events; ``steps`` counts optimizer.step() calls."""

    def __init__(self) -> None:
        self.steps = 0
        self._records: dict[int, list[StepRecord]] = {}
        self._batch: set[int] = set()
        self._in_step = False

    def handle(self, event: events.Event) -> None:
        kind, p = event.kind, event.payload
        if kind == events.PARAM_UPDATED:
            param, opt = p["tensor"], p["optimizer"]
            # one step() updates each parameter once, with no other engine event in between
            if not self._in_step or id(param) in self._batch:
                self.steps += 1
                self._batch = set()
            self._in_step = True
            self._batch.add(id(param))
            history = self._records.setdefault(id(param), [])
            if history and history[-1].param is not param:
                history.clear()
            prev = history[-1].state_after if history else None
            grad = None if param._grad is None else np.array(param._grad._data, copy=True)
            history.append(StepRecord(
                self.steps, opt, param, np.array(p["before"], copy=True),
                np.array(param._data, copy=True), grad, prev, _state_copy(opt, param),
            ))
            del history[:-2]  # the latest update and the one before (its state_before)
        elif kind == events.OPTIMIZER_STATE_CHANGED:
            # the state may change after param_updated: keep the record's copy current
            history = self._records.get(id(p["param"]))
            if history and history[-1].step_call == self.steps and history[-1].param is p["param"]:
                history[-1].state_after = _state_copy(p["optimizer"], p["param"])
        else:
            self._in_step = False

    def record(self, param) -> StepRecord | None:
        """The parameter's latest update."""
        history = self._records.get(id(param))
        return history[-1] if history and history[-1].param is param else None


@dataclass(frozen=True)
class Term:
    symbol: str  # "w", "grad", "buf", "m̂"
    meaning: str
    value: np.ndarray | float


@dataclass(frozen=True)
class UpdateRule:
    """The update rule one parameter followed at a step, with every number filled in."""

    optimizer: str
    equations: tuple[str, ...]  # symbolic lines, top to bottom
    terms: tuple[Term, ...]  # the numbers that go into them
    before: np.ndarray
    grad: np.ndarray | None
    update: np.ndarray  # Δ, all the step took off: after = before - update
    after: np.ndarray
    predicted_after: np.ndarray  # the rule evaluated here, from the recorded numbers
    matches: bool  # the rule reproduces what the optimizer did

    def filled_in(self) -> tuple[str, ...]:
        """The equations with numbers: one line per term, then the final subtraction."""
        lines = [f"{t.symbol} = {format_array(t.value)}   ({t.meaning})" for t in self.terms]
        lines.append(f"w_new = w - Δ = {format_array(self.before)} - {format_array(self.update)}"
                     f" = {format_array(self.after)}")
        return tuple(lines)


def update_rule(rec: StepRecord, group: dict) -> UpdateRule:
    """Evaluate the optimizer's documented rule on the recorded numbers and check it."""
    name = type(rec.optimizer).__name__
    w = rec.before.astype(np.float64)
    g = None if rec.grad is None else rec.grad.astype(np.float64)
    rule = _RULES.get(name)
    equations, terms, predicted = (), (), None
    if rule is not None and g is not None:
        try:
            equations, terms, predicted = rule(w, g, group, rec.state_before, rec.state_after)
        except KeyError:  # a state key the rule expects is missing: fall back to the plain delta
            equations, terms, predicted = (), (), None
    after = rec.after.astype(np.float64)
    if predicted is None:
        equations = ("w_new = w - update   (update = w - w_new, as the optimizer applied it)",)
        predicted = after
    tol = 1e-4 if rec.after.dtype == np.float32 else 1e-9
    matches = bool(np.allclose(predicted, after, rtol=tol, atol=tol))
    return UpdateRule(name, equations, tuple(terms), rec.before, rec.grad, w - after, rec.after,
                      predicted, matches)


def _hyper(group, key, default=0.0):
    v = group.get(key, default)
    return default if v is None else v


def _sgd(w, g, group, prev, now):
    lr, mu = _hyper(group, "lr"), _hyper(group, "momentum")
    damp, wd = _hyper(group, "dampening"), _hyper(group, "weight_decay")
    eq, terms = [], [Term("lr", "learning rate", lr)]
    if group.get("maximize", False):
        g = -g
        eq.append("grad = -grad   (maximize)")
    terms.append(Term("grad", "w.grad (read, not cleared)", g))
    d, d_name = g, "grad"  # the direction so far, and its symbol in the equations
    if wd:
        d, d_name = g + wd * w, "d"
        eq.append("d = grad + weight_decay * w")
        terms.append(Term("d", f"grad + {wd:g} * w", d))
    if mu:
        if prev is not None and "momentum_buffer" in prev:
            buf = mu * prev["momentum_buffer"] + (1 - damp) * d
            eq.append(f"buf = momentum * buf_prev + (1 - dampening) * {d_name}")
            terms.append(Term("buf_prev", "momentum buffer before the step",
                              prev["momentum_buffer"]))
        elif prev is None and _first_sgd_step(now, d):
            buf = d
            eq.append(f"buf = {d_name}   (first step: the buffer starts as the gradient)")
        else:  # recording began after the first step: the optimizer's buffer is all we know
            buf = now["momentum_buffer"]
            eq.append(f"buf = momentum * buf_prev + (1 - dampening) * {d_name}   (buf_prev "
                      "not recorded)")
        terms.append(Term("buf", f"momentum buffer (momentum={mu:g})", buf))
        if group.get("nesterov", False):
            d, d_name = d + mu * buf, "d_nesterov"
            eq.append(f"d_nesterov = {'d' if wd else 'grad'} + momentum * buf   (Nesterov)")
            terms.append(Term("d_nesterov", "the Nesterov look-ahead", d))
        else:
            d, d_name = buf, "buf"
    eq.append(f"w_new = w - lr * {d_name}")
    update = lr * d
    terms.append(Term("update", f"lr * {d_name}", update))
    return tuple(eq), terms, w - update


def _first_sgd_step(now, d) -> bool:
    """Without a recorded previous buffer, the step was the first if the buffer equals d."""
    buf = now.get("momentum_buffer")
    return buf is not None and buf.shape == d.shape and np.allclose(buf, d, rtol=1e-5, atol=1e-7)


def _adam(w, g, group, prev, now):
    decoupled = group.get("decoupled_weight_decay", False)
    lr, (b1, b2) = _hyper(group, "lr"), group["betas"]
    eps, wd = _hyper(group, "eps", 1e-8), _hyper(group, "weight_decay")
    if group.get("maximize", False):
        g = -g
    t = float(now["step"])
    eq, terms = [], [Term("lr", "learning rate", lr), Term("grad", "w.grad (read, not cleared)", g)]
    if wd and decoupled:
        w = w * (1 - lr * wd)
        eq.append("w = w * (1 - lr * weight_decay)   (AdamW: decoupled decay)")
        terms.append(Term("w_decayed", f"w * (1 - lr * {wd:g})", w))
    elif wd:
        g = g + wd * w
        eq.append("g = grad + weight_decay * w")
    m, v = now["exp_avg"], now["exp_avg_sq"]
    if prev is not None and "exp_avg" in prev:
        terms.append(Term("m_prev", "exp_avg before the step", prev["exp_avg"]))
        terms.append(Term("v_prev", "exp_avg_sq before the step", prev["exp_avg_sq"]))
    eq += ["m = β1 * m_prev + (1 - β1) * g", "v = β2 * v_prev + (1 - β2) * g²",
           "bc1 = 1 - β1^t,  bc2 = 1 - β2^t", "step_size = lr / bc1"]
    bc1, bc2 = 1 - b1**t, 1 - b2**t
    v_used = v
    if group.get("amsgrad", False):
        v_used = now["max_exp_avg_sq"]
        eq.append("v_max = max(v_max_prev, v)")
    eq.append("update = step_size * m / (sqrt(v" + ("_max" if v_used is not v else "")
              + ") / sqrt(bc2) + eps)")
    update = (lr / bc1) * m / (np.sqrt(v_used) / np.sqrt(bc2) + eps)
    eq.append("w_new = w - update")
    terms += [Term("t", "step count", t), Term("m", f"exp_avg (β1={b1:g})", m),
              Term("v", f"exp_avg_sq (β2={b2:g})", v), Term("bc1", "1 - β1^t", bc1),
              Term("bc2", "1 - β2^t", bc2), Term("step_size", "lr / bc1", lr / bc1),
              Term("update", "step_size * m / (sqrt(v)/sqrt(bc2) + eps)", update)]
    return tuple(eq), terms, w - update


def _rmsprop(w, g, group, prev, now):
    if _hyper(group, "momentum") or group.get("centered", False):
        raise KeyError("momentum")  # shown as the plain delta
    lr, alpha, eps, wd = (_hyper(group, "lr"), _hyper(group, "alpha", 0.99),
                          _hyper(group, "eps", 1e-8), _hyper(group, "weight_decay"))
    if wd:
        g = g + wd * w
    sa = now["square_avg"]
    update = lr * g / (np.sqrt(sa) + eps)
    eq = ("square_avg = α * square_avg_prev + (1 - α) * g²",
          "w_new = w - lr * g / (sqrt(square_avg) + eps)")
    terms = [Term("lr", "learning rate", lr), Term("g", "grad" + (" + wd * w" if wd else ""), g),
             Term("square_avg", f"running mean of g² (α={alpha:g})", sa),
             Term("update", "lr * g / (sqrt(square_avg) + eps)", update)]
    return eq, terms, w - update


def _adagrad(w, g, group, prev, now):
    lr, decay, eps, wd = (_hyper(group, "lr"), _hyper(group, "lr_decay"),
                          _hyper(group, "eps", 1e-10), _hyper(group, "weight_decay"))
    if wd:
        g = g + wd * w
    t = float(now["step"])
    clr = lr / (1 + (t - 1) * decay)
    s = now["sum"]
    update = clr * g / (np.sqrt(s) + eps)
    eq = ("sum = sum_prev + g²", "clr = lr / (1 + (t - 1) * lr_decay)",
          "w_new = w - clr * g / (sqrt(sum) + eps)")
    terms = [Term("g", "grad" + (" + wd * w" if wd else ""), g), Term("t", "step count", t),
             Term("clr", "decayed learning rate", clr), Term("sum", "sum of g²", s),
             Term("update", "clr * g / (sqrt(sum) + eps)", update)]
    return eq, terms, w - update


_RULES: dict[str, Callable] = {
    "SGD": _sgd,
    "Adam": _adam,
    "AdamW": _adam,
    "RMSprop": _rmsprop,
    "Adagrad": _adagrad,
}


@dataclass(frozen=True)
class ParamRow:
    name: str
    shape: tuple[int, ...]
    grad_state: str  # "none" (step() skips it), "zeros" or "values"
    state: tuple[tuple[str, Any], ...]  # optimizer.state[param] with PyTorch's keys, at the point
    bias_corrections: tuple[tuple[str, float], ...]  # Adam-style: ("1 - β1^t", value), ...
    rule: UpdateRule | None  # the parameter's latest update, its rule with the numbers
    at_step: bool  # the point shown is right after an optimizer.step() that updated it


@dataclass(frozen=True)
class GroupRows:
    optimizer_name: str  # the script's name for it ("optimizer")
    kind: str  # "SGD", "Adam", ...
    index: int
    hyper: tuple[tuple[str, Any], ...]
    params: tuple[ParamRow, ...]


def optimizer_rows(
    snapshot: Snapshot,
    live: Mapping[str, Any],
    recorder: "PanelsRecorder",
    at_step: bool = False,
) -> list[GroupRows]:
    """Per optimizer and param group: hyper-parameters, each parameter's state and update rule.

    ``live`` is the script's names (the optimizers themselves hold the hyper-parameters);
    ``at_step``: the point shown is an optimizer.step() pause, so the rules are the news.
    """
    tensors = named_tensors(live)
    by_id = {}
    for name, t in tensors.items():
        by_id.setdefault(id(t), name)
    out = []
    with recorder.lock:
        for oname, opt in live.items():
            if oname.startswith("__") or isinstance(opt, type) or not is_optimizer(opt):
                continue
            for gi, group in enumerate(opt.param_groups):
                hyper = tuple((k, v) for k, v in group.items() if k != "params")
                params = []
                for pi, p in enumerate(group["params"]):
                    pname = by_id.get(id(p), f"param_groups[{gi}].params[{pi}]")
                    state = tuple((k[2], v) for k, v in snapshot.optimizer.items()
                                  if k[0] == oname and k[1] == pname)
                    rec = snapshot.tensors.get(pname)
                    grad = rec.grad if rec is not None else None
                    gstate = "none" if grad is None else ("zeros" if not np.any(grad) else
                                                          "values")
                    step = recorder.steps.record(p)
                    rule = (update_rule(step, group)
                            if step is not None and step.optimizer is opt else None)
                    params.append(ParamRow(
                        pname, tuple(p.shape), gstate, state,
                        _bias_corrections(group, dict(state)), rule, at_step and rule is not None,
                    ))
                out.append(GroupRows(oname, type(opt).__name__, gi, hyper, tuple(params)))
    return out


def _bias_corrections(group, state) -> tuple[tuple[str, float], ...]:
    betas = group.get("betas")
    if not betas or "step" not in state:
        return ()
    t = float(np.asarray(state["step"]))
    return (("1 - β1^t", 1 - betas[0] ** t), ("1 - β2^t", 1 - betas[1] ** t))


# ---------------------------------------------------------------- training history


class _Series:
    """x and y values appended one at a time; ``array('d')`` keeps both append and read cheap."""

    __slots__ = ("xs", "ys")

    def __init__(self) -> None:
        self.xs = array("d")
        self.ys = array("d")

    def append(self, x: float, y: float) -> None:
        self.xs.append(x)
        self.ys.append(y)

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return np.array(self.xs), np.array(self.ys)


class TrainingHistory:
    """Per backward call: the loss, each leaf's gradient norm and each update/parameter ratio.

    An iteration is one backward() call: it is the one event every training loop has.
    ``version`` grows with every change, so a plot redraws only when there is something new.
    """

    def __init__(self) -> None:
        self.loss = array("d")  # nan where backward() was called on a non-scalar
        self.grad_norms: dict[int, _Series] = {}  # id(tensor) -> (iteration, ‖grad‖)
        self.update_ratios: dict[int, _Series] = {}  # id(tensor) -> (iteration, ‖Δw‖/‖w‖)
        self.version = 0
        self._refs: dict[int, weakref.ref] = {}
        self._written: list = []

    @property
    def iterations(self) -> int:
        return len(self.loss)

    def handle(self, event: events.Event) -> None:
        kind, p = event.kind, event.payload
        if kind == events.BACKWARD_STARTED:
            tensors = p.get("tensors", ())
            loss = float("nan")
            if len(tensors) == 1 and tensors[0]._data.size == 1:
                loss = float(tensors[0]._data.reshape(()))
            self.loss.append(loss)
            self._written = []
            self.version += 1
        elif kind == events.GRAD_ACCUMULATED:
            self._written.append(p["tensor"])
        elif kind == events.BACKWARD_FINISHED:
            it = len(self.loss) - 1
            for t in self._written:
                if t._grad is not None:
                    self._series(self.grad_norms, t).append(it, _norm(t._grad._data))
            self._written = []
            self.version += 1
        elif kind == events.PARAM_UPDATED and self.loss:
            t, before = p["tensor"], p["before"]
            denom = _norm(before)
            ratio = _norm(t._data - before) / denom if denom else float("nan")
            self._series(self.update_ratios, t).append(len(self.loss) - 1, ratio)
            self.version += 1

    def _series(self, table, t) -> _Series:
        ref = self._refs.get(id(t))
        if ref is None or ref() is not t:  # a new tensor reusing a dead one's id
            self._refs[id(t)] = weakref.ref(t)
            self.grad_norms.pop(id(t), None)
            self.update_ratios.pop(id(t), None)
        series = table.get(id(t))
        if series is None:
            series = table[id(t)] = _Series()
        return series

    def series(self, table, names: Mapping[int, str]) -> dict[str, tuple]:
        """``table`` (grad_norms or update_ratios) as display name -> (x, y) arrays.

        ``names`` maps ``id(tensor)`` to display names (``names_by_id``); tensors it does not
        know (a name rebound since) are called ``param 1``, ``param 2``, ...
        """
        out = {}
        known = [key for key in names if key in table]  # the script's order, then the rest
        keys = known + [key for key in list(table) if key not in names]
        for k, key in enumerate(keys):
            ref, data = self._refs.get(key), table[key]
            if not data.xs or ref is None or ref() is None:
                continue
            out[names.get(key) or f"param {k + 1}"] = data.arrays()
        return out


def names_by_id(live: Mapping[str, Any]) -> dict[int, str]:
    """``id(tensor)`` -> display name for every tensor the script can name (first name wins)."""
    out: dict[int, str] = {}
    for name, t in named_tensors(live).items():
        out.setdefault(id(t), name)
    return out


# ---------------------------------------------------------------- the recorder


class PanelsRecorder:
    """Listens to the engine's events and keeps what the panels need; attach once per session.

    Events arrive on the thread that runs the script; the panels read on the GUI thread, so both
    sides hold ``lock``. ``backward_count`` (optional) returns how many backward() calls the
    current run has made (the session's ``counters.backward``): when it falls behind the
    recorder's count, the script was re-run from the start (a restart or time travel backwards)
    and the recorder starts over with it.
    """

    def __init__(self, backward_count: Callable[[], int] | None = None) -> None:
        self.lock = threading.Lock()
        self.backward_count = backward_count
        self.ledger = BufferLedger()
        self.steps = StepLog()
        self.history = TrainingHistory()
        self._unsubscribe: Callable[[], None] | None = None

    @property
    def attached(self) -> bool:
        return self._unsubscribe is not None

    def attach(self, hub: events.EventHub = events.hub) -> "PanelsRecorder":
        if self._unsubscribe is None:
            self._unsubscribe = hub.subscribe(self.handle)
        return self

    def detach(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def reset(self) -> None:
        """Forget everything: the script starts over."""
        with self.lock:
            self._reset()

    def _reset(self) -> None:
        self.ledger = BufferLedger()
        self.steps = StepLog()
        self.history = TrainingHistory()

    def handle(self, event: events.Event) -> None:
        if event.kind == events.OP_RECORDED:
            return  # the busiest event, and none of the panels' business
        with self.lock:
            if event.kind == events.BACKWARD_STARTED and self.backward_count is not None:
                if self.backward_count() < self.ledger.calls:
                    self._reset()
            self.ledger.handle(event)
            self.steps.handle(event)
            self.history.handle(event)


# ---------------------------------------------------------------- comparing two points


@dataclass(frozen=True)
class DeltaRow:
    what: str  # "parameter", "grad" or "optimizer state"
    name: str  # "w", "model.fc1.weight", "optimizer: w.exp_avg"
    a: np.ndarray | None
    b: np.ndarray | None
    delta: np.ndarray | None  # b - a; None where one side is None or the shapes differ
    norm: float | None
    max_abs: float | None

    @property
    def summary(self) -> str:
        if self.delta is None:
            return f"{_describe(self.a)} → {_describe(self.b)}"
        if not np.any(self.delta):
            return "unchanged"
        return f"|Δ| = {self.norm:.4g}, max |Δ| = {self.max_abs:.4g}"


def _describe(a) -> str:
    if a is None:
        return "None"
    return format_array(a) if a.size <= 3 else f"shape {tuple(a.shape)}"


def _as_array(v) -> np.ndarray | None:
    if v is None or isinstance(v, str):
        return None
    return np.asarray(v, dtype=np.float64)


def compare(a: Snapshot, b: Snapshot) -> list[DeltaRow]:
    """Δparameter, Δgrad and Δoptimizer-state from point ``a`` to point ``b``, in that order."""
    def buffers(s):
        return {n: r for n, r in s.tensors.items() if has_buffer(r)}

    ta, tb = buffers(a), buffers(b)
    values = ({n: r.value for n, r in ta.items()}, {n: r.value for n, r in tb.items()})
    grads = ({n: r.grad for n, r in ta.items()}, {n: r.grad for n, r in tb.items()})
    states = tuple({f"{k[0]}: {k[1]}.{k[2]}": v for k, v in s.optimizer.items()} for s in (a, b))
    rows = []
    for what, (da, db) in (("parameter", values), ("grad", grads), ("optimizer state", states)):
        for name in list(da) + [n for n in db if n not in da]:
            x, y = _as_array(da.get(name)), _as_array(db.get(name))
            if x is not None and y is not None and x.shape == y.shape:
                d = y - x
                rows.append(DeltaRow(what, name, x, y, d, _norm(d),
                                     float(np.abs(d).max()) if d.size else 0.0))
            else:
                rows.append(DeltaRow(what, name, x, y, None, None, None))
    return rows


# ---------------------------------------------------------------- text and CSV


def format_array(a, max_items: int = 6, precision: int = 4) -> str:
    """Short text for a number or an array: all of a small one (nested by rows), the first items
    of a big one with its shape."""
    if a is None:
        return "None"
    arr = np.asarray(a)
    if arr.ndim == 0:
        return f"{float(arr):.{precision}g}"
    if arr.size <= max_items:
        return np.array2string(arr.astype(np.float64), separator=", ",
                               formatter={"float_kind": lambda x: f"{x:.{precision}g}"},
                               max_line_width=10_000).replace("\n", "")
    items = ", ".join(f"{float(x):.{precision}g}" for x in arr.ravel()[:max_items])
    return f"[{items}, … ({arr.size} values, shape {tuple(arr.shape)})]"


def csv_text(header: Iterable[str], rows: Iterable[Iterable[Any]]) -> str:
    """CSV for any panel's table; arrays are written as space-separated numbers."""
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(list(header))
    for row in rows:
        writer.writerow([_csv_cell(c) for c in row])
    return buf.getvalue()


def _csv_cell(c) -> str:
    if c is None:
        return "None"
    if isinstance(c, np.ndarray):
        return " ".join(repr(float(x)) for x in c.ravel())
    if isinstance(c, float):
        return repr(c)
    return str(c)


Table = tuple[tuple[str, ...], list[tuple]]  # (header, rows), ready for csv_text


def buffer_table(rows: Iterable[BufferRow]) -> Table:
    return (
        ("name", "group", "shape", "state", "norm", "grad", "contributions"),
        [(r.name, r.group, "x".join(map(str, r.shape)) or "scalar", r.state, r.norm, r.grad,
          " + ".join(f"{c.label}: {format_array(c.value)}" for c in r.contributions))
         for r in rows],
    )


def optimizer_table(groups: Iterable[GroupRows]) -> Table:
    rows = []
    for g in groups:
        hyper = " ".join(f"{k}={v}" for k, v in g.hyper)
        for p in g.params:
            state = " ".join(f"{k}={format_array(v, 1000, 8)}" for k, v in p.state)
            rule = p.rule
            rows.append((g.optimizer_name, g.kind, g.index, hyper, p.name, p.grad_state, state,
                         None if rule is None else rule.before, None if rule is None else rule.grad,
                         None if rule is None else rule.update,
                         None if rule is None else rule.after))
    return (("optimizer", "kind", "group", "hyper-parameters", "parameter", "grad", "state",
             "before", "grad at step", "update", "after"), rows)


def training_table(history: TrainingHistory, names: Mapping[int, str]) -> Table:
    norms = history.series(history.grad_norms, names)
    ratios = history.series(history.update_ratios, names)
    header = (("iteration", "loss") + tuple(f"grad_norm[{n}]" for n in norms)
              + tuple(f"update_ratio[{n}]" for n in ratios))
    columns = []
    for xs, ys in list(norms.values()) + list(ratios.values()):
        col = np.full(history.iterations, np.nan)
        col[xs.astype(int)] = ys
        columns.append(col)
    rows = [(i, history.loss[i], *(float(c[i]) for c in columns))
            for i in range(history.iterations)]
    return header, rows


def compare_table(rows: Iterable[DeltaRow]) -> Table:
    return (("what", "name", "delta norm", "max abs delta", "a", "b", "delta"),
            [(r.what, r.name, r.norm, r.max_abs, r.a, r.b, r.delta) for r in rows])
