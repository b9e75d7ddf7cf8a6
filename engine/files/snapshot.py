"""A script's live state as a SavedState (to save with a file) and back into a namespace.

Tensors are named as everywhere else (the shared walk, ``engine.naming``): ``w`` for a tensor
bound to ``w``, ``model.fc1.weight`` for a module's parameter, ``layers[3]`` for a tensor in a list,
``d['w']`` for one in a dict. Optimizers (engine ``Optimizer`` instances) are found by the same
walk; their parameters and per-parameter state are stored under those tensor names (a parameter
nothing else names is ``opt.param_groups[0]['params'][i]``), so a file does not depend on object
identities.
"""

from __future__ import annotations

import numpy as np

from ..naming import group_params, is_tensor, walk
from .format import SavedOptimizer, SavedState, SavedTensor


def named_tensors(namespace: dict) -> dict[str, object]:
    """Every tensor reachable by a name, first name wins (a tensor bound twice is listed once).

    The shared walk of ``engine.naming``: ``w``, ``d['w']``, ``params[0]``, ``model.fc1.weight``.
    """
    return walk(namespace).by_name()


def _array(value) -> np.ndarray:
    return np.array(value._data if is_tensor(value) else value, copy=True)


def _saved_tensor(tensor) -> SavedTensor:
    grad = None
    if tensor.is_leaf or tensor.retains_grad:  # others would warn, and PyTorch keeps none
        g = tensor.grad
        grad = None if g is None else _array(g)
    return SavedTensor(_array(tensor), grad, bool(tensor.requires_grad))


def _json_option(value):
    """A hyperparameter as JSON data (tuples become lists; objects that are not data drop)."""
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value, True
    if isinstance(value, (list, tuple)) and all(
            isinstance(v, (bool, int, float)) for v in value):
        return list(value), True
    return None, False


def _state_value(value):
    if is_tensor(value) or isinstance(value, np.ndarray):
        return _array(value)
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    return float(value)


def capture_state(namespace: dict, iteration: int = 0) -> SavedState:
    """The named tensors (values, grads, requires_grad) and optimizers of ``namespace``.

    Parameters
    ----------
    namespace : dict
        A script's namespace (``engine.script.run``'s result, or the session's globals).
    iteration : int
        The iteration reached, stored for the session to resume at.
    """
    walked = walk(namespace)
    saved = SavedState(iteration, {e.name: _saved_tensor(e.tensor) for e in walked.tensors})
    for entry in walked.optimizers:
        opt = entry.optimizer
        groups = []
        for group in walked.param_groups(opt):
            if not isinstance(group, dict):
                continue
            params = [walked.name_of(p) for p in group_params(group)
                      if walked.name_of(p) is not None]
            options = {}
            for key, value in dict.items(group):
                if key not in ("params", "param_names"):
                    value, ok = _json_option(value)
                    if ok:
                        options[key] = value
            groups.append({"params": params, **options})
        state: dict = {}
        for _, pname, key, value in walked.optimizer_state(opt):
            if pname is not None:
                state.setdefault(pname, {})[key] = _state_value(value)
        saved.optimizers[entry.name] = SavedOptimizer(type(opt).__name__, groups, state)
    return saved


def restore_state(namespace: dict, state: SavedState) -> list[str]:
    """Write a SavedState into the matching tensors and optimizers of ``namespace``, in place.

    Values are copied into the existing tensors (so modules and optimizers holding them see the
    change) and grads replaced; optimizer state is rebuilt under the same keys.

    Returns
    -------
    list of str
        The saved names that ``namespace`` has no tensor or optimizer for (left untouched).
    """
    from engine.tensor import Tensor

    walked = walk(namespace)
    tensors = walked.lookup()  # a saved name may be another spelling of the same tensor now
    missing = []
    for name, saved in state.tensors.items():
        tensor = tensors.get(name)
        if tensor is None or tensor._data.shape != saved.value.shape:
            missing.append(name)
            continue
        tensor._data[...] = saved.value
        tensor.grad = None if saved.grad is None else Tensor._wrap(saved.grad.copy())
    for opt_name, saved in state.optimizers.items():
        opt = walked.optimizer(opt_name)
        if opt is None:
            missing.append(opt_name)
            continue
        for group, saved_group in zip(walked.param_groups(opt), saved.param_groups):
            group.update({k: tuple(v) if isinstance(v, list) else v
                          for k, v in saved_group.items() if k != "params"})
        opt_state = walked.kinds.optimizer_state(opt)
        opt_state.clear()
        for name, entry in saved.state.items():
            if name in tensors:
                opt_state[tensors[name]] = {
                    k: Tensor._wrap(v.copy()) if isinstance(v, np.ndarray) else v
                    for k, v in entry.items()}
    return missing
