"""Export the gradient buffers of a script's namespace as a numpy ``.npz`` file.

The archive holds one array per gradient, named after where the user finds it: ``w`` for a
tensor bound to ``w``, ``model.fc1.weight`` for a module's parameter, ``layers[3]`` for a tensor in
a list, ``d['w']`` in a dict (the names of ``engine.naming``, as the graph and the session's).
Only buffers PyTorch keeps are exported: leaves' ``.grad`` and the ``.grad`` of non-leaf tensors
that called ``retain_grad()``; tensors whose grad is None are left out.
"""

from __future__ import annotations

import io
import os
import zipfile

import numpy as np

from ..naming import walk
from .io import write_atomic


def _grad_array(tensor):
    # reading .grad of a non-leaf that does not retain it warns (as in PyTorch): skip it quietly
    if not (tensor.is_leaf or tensor.retains_grad):
        return None
    grad = tensor.grad
    if grad is None:
        return None
    return np.array(getattr(grad, "_data", grad), copy=True)


def gradient_buffers(namespace: dict) -> dict[str, np.ndarray]:
    """The gradient buffers reachable by name from ``namespace``, in the walk's order.

    Tensors are found and named by the shared walk (``engine.naming``): bound to names, inside
    dicts, lists and tuples, module parameters and buffers, optimizer parameters. Names starting
    with an underscore are skipped.
    """
    out: dict[str, np.ndarray] = {}
    for entry in walk(namespace).tensors:
        grad = _grad_array(entry.tensor)
        if grad is not None:
            out[entry.name] = grad
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
