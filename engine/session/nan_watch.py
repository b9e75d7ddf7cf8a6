"""The NaN watch: where a NaN or an infinity first appears, not every place that carries it on.

With ``break_on_nan`` the session shows the watch every op recorded, every backward node run and
every pause. A non-finite value is *new* when nothing it was computed from was non-finite: an op
whose inputs were finite (``log`` of a negative number), a backward node whose incoming gradient
and forward inputs and output were finite (``SqrtBackward0`` at 0), a named tensor that turned
non-finite in a statement that read no non-finite name (an element set to ``nan``). A value
computed from a non-finite one is *carried*: the output of an op with a non-finite input (one
the watch saw made, a leaf, a saved value), a backward node's gradient when what it received or
what it ran on was non-finite, a ``.grad`` that received a carried gradient, a tensor already
non-finite under another name, a name a statement made non-finite from a name that already was
(``w -= lr * w.grad`` under no_grad). The session pauses at new values only; carried ones are
then known, so they do not pause later either.

What it cannot see: an input of a recorded op that neither requires grad nor is saved by the op
(``x + c``, ``c`` a constant tensor holding a NaN), whose output then looks new; a statement that
reads a non-finite name and makes a new NaN from other values, which looks carried.
"""

from __future__ import annotations

import weakref

import numpy as np

from ..autograd.node import AccumulateGrad
from .counters import _own_nodes
from .state import non_finite


class NanWatch:
    """What one run has shown of its non-finite values (a new one per run)."""

    def __init__(self) -> None:
        self.nodes: weakref.WeakSet = weakref.WeakSet()  # nodes whose output was non-finite
        self.known: set = set()  # names (``w``, ``w.grad``) non-finite at the last check
        self.held: dict = {}  # id -> tensor non-finite at the last check (values and grads)
        self.roots: set = set()  # the first identifier of every spelling of those tensors
        self.carried: dict = {}  # id -> tensor made non-finite by a carry since the last check
        self.fresh = False  # a new non-finite value appeared since the last check
        self._reads: dict = {}  # stmt -> the names it reads

    # ------------------------------------------------------------------ engine events
    def op_recorded(self, node, out) -> bool:
        """``node`` made ``out``: True when that is a new non-finite value."""
        if not non_finite(out._data):
            return False
        new = not self._fed_non_finite(node)
        self.nodes.add(node)
        if new:
            self.fresh = True
        else:
            self.carried[id(out)] = out
        return new

    def backward_step(self, step) -> bool:
        """True when the node ``step`` ran sent a new non-finite gradient along an edge."""
        node = step.node
        if node.__class__ is AccumulateGrad:
            grads = step.grads_in
            if grads and grads[0] is not None and non_finite(_array(grads[0])):
                grad = getattr(node.variable, "_grad", None)
                if grad is not None:
                    self.carried[id(grad)] = grad
            return False
        if not any(g is not None and non_finite(_array(g)) for g in step.grads_out):
            return False
        if (node in self.nodes or self._fed_non_finite(node)
                or any(g is not None and non_finite(_array(g)) for g in step.grads_in)):
            return False
        self.fresh = True
        return True

    def _fed_non_finite(self, node) -> bool:
        """An input of ``node`` was non-finite: made by a node seen so, a leaf, a saved value."""
        nodes = self.nodes
        for fn, _ in node.next_functions:
            if fn is None:
                continue
            if fn in nodes:
                return True
            if fn.__class__ is AccumulateGrad:
                leaf = fn.variable
                if leaf is not None and non_finite(leaf._data):
                    return True
        return any(s is not None and non_finite(_array(s)) for s in getattr(node, "saved", None)
                   or ())

    # ------------------------------------------------------------------ at a pause
    def check(self, entries, ran=None) -> list[str]:
        """Names among ``entries`` (``naming`` tensors) that hold a new NaN/Inf now and did
        not at the last check; ``ran`` is the statement that ran since (None: unknown)."""
        carried_by_reads = ran is not None and not self.roots.isdisjoint(self.reads(ran))
        trust = not self.fresh  # a new value since: every name it reached is news too
        held, carried = self.held, self.carried
        now: set = set()
        now_held: dict = {}
        roots: set = set()
        new = []
        for entry in entries:
            t = entry.tensor
            bad = False
            for name, obj in ((entry.name, t), (entry.name + ".grad", t._grad)):
                if obj is None or not non_finite(obj._data):
                    continue
                bad = True
                now.add(name)
                now_held[id(obj)] = obj
                if obj is t and t.grad_fn is not None:
                    self.nodes.add(t.grad_fn)  # an op on it carries the value on
                if name in self.known and held.get(id(obj)) is obj:
                    continue  # still the one seen there
                if trust and (carried_by_reads or held.get(id(obj)) is obj
                              or carried.get(id(obj)) is obj):
                    continue
                new.append(name)
            if bad:
                roots.update(_root(s) for s in entry.spellings)
        self.known, self.held, self.roots = now, now_held, roots
        self.carried = {}
        self.fresh = False
        return sorted(new)

    def reads(self, stmt) -> frozenset:
        """The identifiers the statement's own expressions use (a compound statement's
        header)."""
        names = self._reads.get(stmt)
        if names is None:
            import ast

            names = self._reads[stmt] = frozenset(
                n.id for n in _own_nodes(stmt) if isinstance(n, ast.Name))
        return names


def _array(value):
    """The array of a tensor, an array or a float (None for anything else an op saved)."""
    if isinstance(value, np.ndarray):
        return value
    data = getattr(value, "_data", None)
    if isinstance(data, np.ndarray):
        return data
    return np.asarray(value) if isinstance(value, (float, np.generic)) else None


def _root(spelling: str) -> str:
    """``model`` of ``model.0.weight``, ``d`` of ``d['w']``."""
    end = 0
    while end < len(spelling) and (spelling[end].isalnum() or spelling[end] == "_"):
        end += 1
    return spelling[:end]
