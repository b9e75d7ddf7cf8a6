"""Optimizer steps: what each ``step()`` did to each parameter (``StepLog``), the update rule
re-evaluated on those numbers (``update_rule``: SGD with momentum, Nesterov and weight decay, Adam,
AdamW, RMSprop, Adagrad; other optimizers, LBFGS among them, show the delta they applied), and
the rows the optimizer panel shows (``optimizer_rows``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ... import events
from ..state import Snapshot, is_optimizer, named_tensors
from .arrays import format_array
from .csv_export import Table

if TYPE_CHECKING:
    from .recorder import PanelsRecorder


STEP_NOTE = (
    "optimizer.step() reads each parameter's .grad and updates the parameter and the optimizer "
    "state; it does not clear .grad. Only zero_grad() does, so without it the next backward() "
    "adds to the old gradient."
)


@dataclass
class StepRecord:
    """One parameter's update in one ``optimizer.step()`` call, copied as it happened."""

    step_call: int  # optimizer.step() calls are numbered from 1 since the recorder attached
    optimizer: Any  # the live optimizer (None in a replay: ``kind`` names it)
    param: Any  # the live parameter (None in a replay)
    before: np.ndarray
    after: np.ndarray | None  # None: not recorded (a recording's last step)
    grad: np.ndarray | None
    state_before: dict[str, np.ndarray] | None  # None: first step (or recorded too late)
    state_after: dict[str, np.ndarray]
    kind: str = ""  # the optimizer's class name ("Adam"); defaults to the live optimizer's

    def __post_init__(self) -> None:
        if not self.kind:
            self.kind = type(self.optimizer).__name__


def _state_copy(optimizer, param) -> dict[str, np.ndarray]:
    state = optimizer.state.get(param, {}) if hasattr(optimizer.state, "get") else {}
    return state_arrays(state)


def state_arrays(state: Mapping) -> dict[str, np.ndarray]:
    """One parameter's optimizer state (live or recorded) as float64 copies, numbers only."""
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
        self._just_copied: int | None = None  # id of the param whose state was just copied

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
                self.steps, opt, param, p["before"],  # the optimizer's own fresh copy
                np.array(param._data, copy=True), grad, prev, _state_copy(opt, param),
            ))
            del history[:-2]  # the latest update and the one before (its state_before)
            self._just_copied = id(param)
        elif kind == events.OPTIMIZER_STATE_CHANGED:
            if self._just_copied == id(p["param"]):
                self._just_copied = None  # right after param_updated: the copy is current
                return
            # the state changed later on its own: keep the record's copy current
            history = self._records.get(id(p["param"]))
            if history and history[-1].step_call == self.steps and history[-1].param is p["param"]:
                history[-1].state_after = _state_copy(p["optimizer"], p["param"])
        else:
            self._in_step = False
            self._just_copied = None

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
    matches: bool | None  # the rule reproduces what the optimizer did (None: no value after)

    def filled_in(self) -> tuple[str, ...]:
        """The equations with numbers: one line per term, then the final subtraction."""
        lines = [f"{t.symbol} = {format_array(t.value)}   ({t.meaning})" for t in self.terms]
        lines.append(f"w_new = w - Δ = {format_array(self.before)} - {format_array(self.update)}"
                     f" = {format_array(self.after)}")
        return tuple(lines)


def update_rule(rec: StepRecord, group: dict) -> UpdateRule:
    """Evaluate the optimizer's documented rule on the recorded numbers and check it.

    Without the parameter's value after the step (``rec.after`` None: a recording's last step)
    the rule's own result stands for it and ``matches`` is None: nothing to check against.
    """
    name = rec.kind
    w = rec.before.astype(np.float64)
    g = None if rec.grad is None else rec.grad.astype(np.float64)
    rule = _RULES.get(name)
    equations, terms, predicted = (), (), None
    if rule is not None and g is not None:
        try:
            equations, terms, predicted = rule(w, g, group, rec.state_before, rec.state_after)
        except KeyError:  # a state key the rule expects is missing: fall back to the plain delta
            equations, terms, predicted = (), (), None
    if rec.after is None:
        if predicted is None:  # neither the rule nor the value after: nothing to show
            predicted = w
            equations = ("w_new = ?   (the value after this step was not recorded)",)
        after, matches, shown_after = predicted, None, predicted
    else:
        after, shown_after = rec.after.astype(np.float64), rec.after
        if predicted is None:
            equations = ("w_new = w - update   (update = w - w_new, as the optimizer applied it)",)
            predicted = after
        tol = 1e-4 if rec.after.dtype == np.float32 else 1e-9
        matches = bool(np.allclose(predicted, after, rtol=tol, atol=tol))
    return UpdateRule(name, equations, tuple(terms), rec.before, rec.grad, w - after, shown_after,
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
    ``at_step``: the point shown is an optimizer.step() pause, so the rules are the news. In a
    replay (``recorder.replay``) the recording's optimizers and steps stand for the live ones.
    """
    with recorder.lock:
        if recorder.replay is not None:
            return _replay_rows(snapshot, recorder.replay, at_step)
        tensors = named_tensors(live)
        by_id = {}
        for name, t in tensors.items():
            by_id.setdefault(id(t), name)
        out = []
        for oname, opt in live.items():
            if oname.startswith("__") or isinstance(opt, type) or not is_optimizer(opt):
                continue
            kind = type(opt).__name__
            for gi, group in enumerate(opt.param_groups):
                params = []
                for pi, p in enumerate(group["params"]):
                    pname = by_id.get(id(p), f"param_groups[{gi}].params[{pi}]")
                    step = recorder.steps.record(p)
                    if step is not None and step.optimizer is not opt:
                        step = None
                    params.append(_param_row(snapshot, oname, group, pname, tuple(p.shape), step,
                                             at_step))
                out.append(_group_rows(oname, kind, gi, group, params))
        return out


def told_optimizers(live: Mapping[str, Any], tensors: Mapping[str, Any], steps: StepLog,
                    told: dict | None = None) -> tuple[tuple, dict]:
    """The script's optimizers and their latest steps as plain data, told the way a replay
    tells them (``ReplayOptimizer`` objects, and ``(optimizer name, parameter name) -> StepRecord``
    without live objects), so ``optimizer_rows`` gives the same rows from them.
    ``tensors``: ``named_tensors(live)``; ``told`` (kept by the caller between tellings): a
    step told the time before is None, "as told before"."""
    now: dict = {}
    from .replay import ReplayOptimizer

    by_id: dict[int, str] = {}
    for name, t in tensors.items():
        by_id.setdefault(id(t), name)
    shown, told_steps = [], {}
    for oname, opt in live.items():
        if oname.startswith("__") or isinstance(opt, type) or not is_optimizer(opt):
            continue
        groups, shapes = [], {}
        for gi, group in enumerate(opt.param_groups):
            names = []
            for pi, p in enumerate(group["params"]):
                pname = by_id.get(id(p), f"param_groups[{gi}].params[{pi}]")
                names.append(pname)
                shapes[pname] = tuple(p.shape)
                step = steps.record(p)
                if step is not None and step.optimizer is opt:
                    key = (oname, pname)
                    now[key] = step
                    same = told is not None and told.get(key) is step
                    told_steps[key] = None if same else replace(step, optimizer=None, param=None)
            groups.append({k: (tuple(names) if k == "params" else _plain_hyper(v))
                           for k, v in group.items()})
        shown.append(ReplayOptimizer(oname, type(opt).__name__, tuple(groups), shapes))
    if told is not None:
        told.clear()
        told.update(now)
    return tuple(shown), told_steps


def _plain_hyper(value):
    """A hyper-parameter as plain data (a tensor learning rate as its numbers)."""
    data = getattr(value, "_data", None)
    return np.array(data, copy=True) if isinstance(data, np.ndarray) else value


def _replay_rows(snapshot: Snapshot, replay, at_step: bool) -> list[GroupRows]:
    """The rows of a replay: the recorded optimizers, their groups and each parameter's step."""
    out = []
    for opt in replay.optimizers:
        for gi, group in enumerate(opt.param_groups):
            params = [_param_row(snapshot, opt.name, group, pname, opt.shapes.get(pname, ()),
                                 replay.steps.get((opt.name, pname)), at_step)
                      for pname in group.get("params", ())]
            out.append(_group_rows(opt.name, opt.kind, gi, group, params))
    return out


def _group_rows(oname: str, kind: str, index: int, group: Mapping, params: list) -> GroupRows:
    hyper = tuple((k, v) for k, v in group.items() if k != "params")
    return GroupRows(oname, kind, index, hyper, tuple(params))


def _param_row(snapshot: Snapshot, oname: str, group: Mapping, pname: str, shape: tuple,
               step: StepRecord | None, at_step: bool) -> ParamRow:
    """One parameter's row: its grad, its state at the point and its latest step's rule."""
    state = shown_state((k[2], v) for k, v in snapshot.optimizer.items()
                        if k[0] == oname and k[1] == pname)
    rec = snapshot.tensors.get(pname)
    grad = rec.grad if rec is not None else None
    gstate = "none" if grad is None else ("zeros" if not np.any(grad) else "values")
    rule = update_rule(step, group) if step is not None else None
    return ParamRow(pname, tuple(shape), gstate, state, _bias_corrections(group, dict(state)),
                    rule, at_step and rule is not None)


def shown_state(pairs: Iterable[tuple[str, Any]]) -> tuple[tuple[str, Any], ...]:
    """A parameter's state as the panel shows it: numbers and arrays as they are. A list in the
    state (L-BFGS keeps its history as lists of tensors: ``old_dirs``, ``old_stps``, ``ro``,
    ``al``, all on the first parameter) is one array, its set entries stacked (k curvature
    pairs of n numbers: shape (k, n)); a list the snapshot kept only as text is shown by its
    number of tensors, under ``len(key)``."""
    out = []
    for key, value in pairs:
        if isinstance(value, (list, tuple)):
            arrays = [np.asarray(getattr(v, "_data", v), dtype=np.float64) for v in value
                      if v is not None]
            if arrays and all(a.shape == arrays[0].shape for a in arrays):
                value = np.stack(arrays)
            elif not arrays:
                value = np.zeros((0,))
            else:
                key, value = f"len({key})", len(arrays)
        elif isinstance(value, str):
            key, value = f"len({key})", value.count("tensor(")
        out.append((key, value))
    return tuple(out)


def _bias_corrections(group, state) -> tuple[tuple[str, float], ...]:
    betas = group.get("betas")
    if not betas or "step" not in state:
        return ()
    t = float(np.asarray(state["step"]))
    return (("1 - β1^t", 1 - betas[0] ** t), ("1 - β2^t", 1 - betas[1] ** t))


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
