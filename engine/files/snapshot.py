"""A script's live state as a SavedState (to save with a file) and back into a namespace.

Tensors are named as the user finds them: ``w`` for a tensor bound to ``w``, ``model.fc1.weight``
for a module's parameter, ``layers[3]`` for a tensor in a list. Optimizers are found by the
same walk (anything with ``param_groups`` and ``state``); their parameters and per-parameter
state are stored under those tensor names, so a file does not depend on object identities.
"""

from __future__ import annotations

import numpy as np

from .format import SavedOptimizer, SavedState, SavedTensor


def _is_tensor(value) -> bool:
    return hasattr(value, "_data") and hasattr(value, "grad_fn") and hasattr(
        value, "requires_grad")


def _is_optimizer(value) -> bool:
    return hasattr(value, "param_groups") and hasattr(value, "state") and not isinstance(
        value, type)


def named_tensors(namespace: dict) -> dict[str, object]:
    """Every tensor reachable by a name, first name wins (a tensor bound twice is listed once)."""
    out: dict[str, object] = {}
    seen: set[int] = set()

    def add(name, tensor):
        if id(tensor) not in seen:
            seen.add(id(tensor))
            out[name] = tensor

    for name, value in namespace.items():
        if not isinstance(name, str) or name.startswith("_") or isinstance(value, type):
            continue
        if _is_tensor(value):
            add(name, value)
        elif callable(getattr(value, "named_parameters", None)):
            for pname, param in value.named_parameters():
                add(f"{name}.{pname}", param)
        elif isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                if _is_tensor(item):
                    add(f"{name}[{i}]", item)
    return out


def _array(value) -> np.ndarray:
    return np.array(value._data if _is_tensor(value) else value, copy=True)


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
    if _is_tensor(value) or isinstance(value, np.ndarray):
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
    tensors = named_tensors(namespace)
    name_of = {id(t): name for name, t in tensors.items()}
    saved = SavedState(iteration, {name: _saved_tensor(t) for name, t in tensors.items()})
    for opt_name, opt in namespace.items():
        if not isinstance(opt_name, str) or opt_name.startswith("_") or not _is_optimizer(opt):
            continue
        groups = []
        for group in opt.param_groups:
            params = []
            for k, p in enumerate(group["params"]):
                if id(p) not in name_of:  # a parameter nobody named: name it by its optimizer
                    name_of[id(p)] = f"{opt_name}.params[{len(name_of)}]"
                    saved.tensors[name_of[id(p)]] = _saved_tensor(p)
                params.append(name_of[id(p)])
            options = {}
            for key, value in group.items():
                if key not in ("params", "param_names"):
                    value, ok = _json_option(value)
                    if ok:
                        options[key] = value
            groups.append({"params": params, **options})
        state = {name_of[id(p)]: {k: _state_value(v) for k, v in st.items()}
                 for p, st in opt.state.items() if id(p) in name_of and st}
        saved.optimizers[opt_name] = SavedOptimizer(type(opt).__name__, groups, state)
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
    from engine.tensor import Tensor  # engine.files must stay importable without the engine

    tensors = named_tensors(namespace)
    missing = []
    for name, saved in state.tensors.items():
        tensor = tensors.get(name)
        if tensor is None or tensor._data.shape != saved.value.shape:
            missing.append(name)
            continue
        tensor._data[...] = saved.value
        tensor.grad = None if saved.grad is None else Tensor._wrap(saved.grad.copy())
    for opt_name, saved in state.optimizers.items():
        opt = namespace.get(opt_name)
        if not _is_optimizer(opt):
            missing.append(opt_name)
            continue
        for group, saved_group in zip(opt.param_groups, saved.param_groups):
            group.update({k: tuple(v) if isinstance(v, list) else v
                          for k, v in saved_group.items() if k != "params"})
        opt.state.clear()
        for name, entry in saved.state.items():
            if name in tensors:
                opt.state[tensors[name]] = {
                    k: Tensor._wrap(v.copy()) if isinstance(v, np.ndarray) else v
                    for k, v in entry.items()}
    return missing
