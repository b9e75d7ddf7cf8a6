"""Predict mode: questions about the statement about to run (``.item()``, ``.tolist()``,
``is_leaf``, what ``backward()`` will write), their answers and explanations, and the check of
the user's guess.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ...autograd.node import AccumulateGrad
from ..state import Snapshot, named_tensors
from .arrays import format_array


@dataclass(frozen=True)
class Prediction:
    """A question about the statement about to run, for the user to answer before it does.

    ``answer`` is known before the statement runs for ``.item()``, ``.tolist()`` and ``is_leaf``
    (reading them changes nothing); for ``backward()`` it is read at the next pause
    (``resolve``), since only running backward() computes it.
    """

    kind: str  # "item", "tolist", "is_leaf" or "grad"
    expression: str  # "z.item()", "t2.is_leaf", "t1.grad"
    question: str
    answer: Any = None
    explanation: str = ""
    target: str = ""  # the tensor asked about (display name)
    before: Any = None  # for "grad": the buffer before backward() (None or an array)

    @property
    def resolved(self) -> bool:
        return self.kind != "grad" or self.explanation != ""


def predictions(stmt: ast.stmt | None, live: Mapping[str, Any],
                tensors: Mapping[str, Any] | None = None) -> list[Prediction]:
    """The questions the statement ``stmt`` raises, with their answers where already known
    (``tensors``: ``named_tensors(live)``, if known; walked only for a statement that asks)."""
    if stmt is None:
        return []
    out: list[Prediction] = []
    seen: set[str] = set()
    for node in ast.walk(stmt):
        target = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method, target = node.func.attr, _dotted(node.func.value)
            if method not in ("item", "tolist", "backward") or node.args or target is None:
                continue
        elif isinstance(node, ast.Attribute) and node.attr == "is_leaf":
            method, target = "is_leaf", _dotted(node.value)
        else:
            continue
        if tensors is None:
            tensors = named_tensors(live)
        t = tensors.get(target)
        if t is None or (target, method) in seen:
            continue
        seen.add((target, method))
        made = _PREDICTORS[method](target, t, tensors)
        if made is not None:
            out.append(made)
    return out


def _dotted(node) -> str | None:
    try:
        text = ast.unparse(node)
    except Exception:
        return None
    return text if all(part.isidentifier() for part in text.split(".")) else None


def _predict_item(name, t, _tensors):
    if t._data.size != 1:
        return Prediction("item", f"{name}.item()", f"What does {name}.item() return?",
                          "RuntimeError", f"{name} has {t._data.size} elements; .item() "
                          "only converts a one-element tensor (it raises a RuntimeError).")
    value = t._data.reshape(()).item()
    return Prediction("item", f"{name}.item()", f"What does {name}.item() return?", value,
                      f".item() gives the one value of {name} as a plain Python "
                      f"{type(value).__name__}, detached from the graph: {value!r}.")


def _predict_tolist(name, t, _tensors):
    value = t._data.tolist()
    return Prediction("tolist", f"{name}.tolist()", f"What does {name}.tolist() return?", value,
                      f".tolist() copies {name} into nested Python lists of plain numbers "
                      f"(shape {tuple(t.shape)}); for one element it is the number itself.")


def _predict_is_leaf(name, t, _tensors):
    fn = t.grad_fn
    if fn is None and t.requires_grad:
        why = (f"{name} was created by you with requires_grad=True, not by an operation: it "
               "has no grad_fn, and backward() writes its gradient into its .grad.")
    elif fn is None:
        why = (f"{name} does not require grad, so it is a leaf by convention; backward() never "
               "gives it a .grad.")
    else:
        why = (f"{name} is the result of {fn.name()}: a non-leaf. Its .grad is not kept unless "
               "you call retain_grad(); is_leaf is False.")
    return Prediction("is_leaf", f"{name}.is_leaf", f"Is {name} a leaf ({name}.is_leaf)?",
                      fn is None, why)


def _predict_grad(name, t, tensors):
    """backward() on ``t``: ask for the gradient of the first named leaf it reaches."""
    leaves = _leaves_reached(t)
    target = next((n for n, x in tensors.items() if id(x) in leaves), None)
    if target is None:
        return None
    leaf = tensors[target]
    before = None if leaf._grad is None else np.array(leaf._grad._data, copy=True)
    return Prediction("grad", f"{target}.grad", f"After {name}.backward(), what is {target}.grad?",
                      target=target, before=before)


def _leaves_reached(t) -> set[int]:
    found, stack, seen = set(), [t.grad_fn], set()
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        if fn.__class__ is AccumulateGrad:
            found.add(id(fn.variable))
        stack.extend(nxt for nxt, _ in getattr(fn, "next_functions", ()))
    return found

_PREDICTORS = {"item": _predict_item, "tolist": _predict_tolist, "is_leaf": _predict_is_leaf,
               "backward": _predict_grad}


def resolve(prediction: Prediction, snapshot: Snapshot) -> Prediction:
    """A ``grad`` prediction with its answer, read at the pause after backward() ran."""
    if prediction.kind != "grad" or prediction.resolved:
        return prediction
    record = snapshot.tensors.get(prediction.target)
    after = None if record is None else record.grad
    if after is None:
        why = f"{prediction.target}.grad stayed None: backward() did not reach it."
    elif prediction.before is None:
        why = (f"{prediction.target}.grad was None, so backward() stored the gradient itself: "
               f"{format_array(after)}.")
    else:
        why = (f"{prediction.target}.grad already held {format_array(prediction.before)}; "
               f"backward() adds the new gradient {format_array(after - prediction.before)} to it "
               "(gradients accumulate until zero_grad()).")
    return replace(prediction, answer=None if after is None else after.tolist(), explanation=why)


def check_guess(prediction: Prediction, guess: str) -> bool:
    """Whether the user's typed ``guess`` matches the answer (numbers to 4 significant digits)."""
    text = guess.strip()
    answer = prediction.answer
    if isinstance(answer, str):  # an error message's type
        return text.lower().rstrip("()") in (answer.lower(), "error", "an error")
    if isinstance(answer, bool):
        return text.lower() in (("true", "yes") if answer else ("false", "no"))
    if answer is None:
        return text == "None"
    try:
        value = ast.literal_eval(text.replace("tensor(", "(") if text else "None")
        got, want = np.asarray(value, dtype=np.float64), np.asarray(answer, dtype=np.float64)
    except (ValueError, SyntaxError, TypeError):
        return False
    return got.shape == want.shape and bool(np.allclose(got, want, rtol=1e-3, atol=1e-4))
