"""Export the gradient buffers of a script's namespace as a numpy ``.npz`` file.

The archive holds one array per gradient, named after where the user finds it: ``w`` for a
tensor bound to ``w``, ``model.fc1.weight`` for a module's parameter, ``layers[3]`` for a tensor in
a list. Only buffers PyTorch keeps are exported: leaves' ``.grad`` and the ``.grad`` of non-leaf
tensors that called ``retain_grad()``; tensors whose grad is None are left out.
"""

from __future__ import annotations

import io
import os
import zipfile

import numpy as np

from .io import write_atomic


def _is_tensor(value) -> bool:
    return hasattr(value, "grad_fn") and hasattr(value, "requires_grad") and hasattr(
        value, "retains_grad")


def _grad_array(tensor):
    # reading .grad of a non-leaf that does not retain it warns (as in PyTorch): skip it quietly
    if not (tensor.is_leaf or tensor.retains_grad):
        return None
    grad = tensor.grad
    if grad is None:
        return None
    return np.array(getattr(grad, "_data", grad), copy=True)


def gradient_buffers(namespace: dict) -> dict[str, np.ndarray]:
    """The gradient buffers reachable by name from ``namespace``, in the namespace's order.

    Looks at tensors bound to names, parameters of modules (anything with
    ``named_parameters()``), and tensors directly inside lists and tuples. Names starting with
    an underscore are skipped.
    """
    out: dict[str, np.ndarray] = {}

    def add(key, tensor):
        grad = _grad_array(tensor)
        if grad is not None:
            out[key] = grad

    for name, value in namespace.items():
        if not isinstance(name, str) or name.startswith("_"):
            continue
        if _is_tensor(value):
            add(name, value)
        elif callable(getattr(value, "named_parameters", None)) and not isinstance(value, type):
            for pname, param in value.named_parameters():
                add(f"{name}.{pname}", param)
        elif isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                if _is_tensor(item):
                    add(f"{name}[{i}]", item)
    return out


def export_npz(path: str | os.PathLike, namespace: dict) -> list[str]:
    """Write ``gradient_buffers(namespace)`` to ``path`` (atomically); return the names written.

    Read it back with ``numpy.load(path)``; arrays keep their dtype and shape exactly.
    """
    buffers = gradient_buffers(namespace)
    write_atomic(path, _npz_bytes(buffers))
    return list(buffers)


def _npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    # what numpy.savez writes, without its keyword arguments (a tensor named ``file`` would
    # collide with savez's own parameter)
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_STORED) as archive:
        for key, array in arrays.items():
            with archive.open(f"{key}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, array, allow_pickle=False)
    return data.getvalue()
