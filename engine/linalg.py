"""``torch.linalg``: the part of it the engine has (``cross``, ``matmul``, ``vector_norm``,
``norm`` of a vector, ``cholesky``, ``solve_triangular``), made of the op table's rows as
PyTorch's functions are."""

from __future__ import annotations

from .ops import api as _api
from .ops import numeric as _numeric

cholesky = _numeric.linalg_cholesky
solve_triangular = _numeric.linalg_solve_triangular


def cross(input, other, *, dim=-1):
    """``torch.linalg.cross``: dim -1 by default (``torch.cross`` looks for a dim of size 3)."""
    return _numeric.cross(input, other, dim=dim)


def matmul(input, other):
    return _api.matmul(input, other)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    return _api.norm(x, ord, dim, keepdim)


def norm(input, ord=None, dim=None, keepdim=False, *, dtype=None):
    if input.ndim > 1 and dim is None and ord is not None or (
            isinstance(dim, (tuple, list)) and len(dim) == 2 and ord not in (None, "fro")):
        raise NotImplementedError("torch.linalg.norm of a matrix is not supported by the engine")
    return _api.norm(input, 2 if ord is None else ord, dim, keepdim)
