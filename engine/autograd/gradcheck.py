"""``torch.autograd.gradcheck`` / ``gradgradcheck``: analytical gradients (the engine's backward)
against central finite differences, PyTorch's slow mode. ``gradgradcheck`` checks the gradients of
the gradients (``create_graph``), with random ``grad_outputs`` drawn from a fixed-seed numpy
generator (PyTorch draws them from its global generator; the engine leaves the user's alone)."""

from __future__ import annotations

import numpy as np

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck / gradgradcheck when a check fails (PyTorch's class name)."""


def _tensor_cls():
    from ..tensor import Tensor

    return Tensor


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _is_diff(t) -> bool:
    return isinstance(t, _tensor_cls()) and t.requires_grad


def _fail(message, raise_exception):
    if raise_exception:
        raise GradcheckError(message)
    return False


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False, check_forward_ad=False,
              check_backward_ad=True, fast_mode=False, masked=None):
    """True when ``func``'s backward matches finite differences at ``inputs``."""
    from .gradient import grad

    Tensor = _tensor_cls()
    args = _as_tuple(inputs)
    diff_idx = [i for i, a in enumerate(args) if _is_diff(a)]
    if not diff_idx:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of the them have requires_grad=True.")
    outputs = _as_tuple(func(*args))
    out_idx = [k for k, o in enumerate(outputs) if _is_diff(o)]
    diff_inputs = [args[i] for i in diff_idx]

    def evaluate(i, arr):
        new = list(args)
        t = Tensor._wrap(arr)
        t.requires_grad_(True)
        new[i] = t
        outs = _as_tuple(func(*new))
        return [np.array(outs[k]._data, dtype=np.float64) for k in out_idx]

    for oi, k in enumerate(out_idx):
        out = outputs[k]
        m = out._data.size
        for ii, i in enumerate(diff_idx):
            x = args[i]._data
            n = x.size
            numerical = np.zeros((n, m))
            for j in range(n):
                plus = np.array(x, copy=True)
                minus = np.array(x, copy=True)
                plus.flat[j] += eps
                minus.flat[j] -= eps
                hi = evaluate(i, plus)[oi]
                lo = evaluate(i, minus)[oi]
                numerical[j] = ((hi - lo) / (2 * eps)).reshape(-1)
            analytical = np.zeros((n, m))
            for j in range(m):
                go = np.zeros(out._data.shape, dtype=out._data.dtype)
                go.flat[j] = 1
                gs = grad(out, diff_inputs, Tensor._wrap(go), retain_graph=True,
                          allow_unused=True)
                if gs[ii] is not None:
                    analytical[:, j] = np.asarray(gs[ii]._data, dtype=np.float64).reshape(-1)
            if not np.allclose(analytical, numerical, rtol=rtol, atol=atol):
                return _fail(
                    f"Jacobian mismatch for output {oi} with respect to input {ii},\n"
                    f"numerical:{Tensor._wrap(numerical)}\nanalytical:{Tensor._wrap(analytical)}\n",
                    raise_exception)
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """True when the gradients of ``func``'s gradients match finite differences."""
    from .gradient import grad

    Tensor = _tensor_cls()
    args = _as_tuple(inputs)
    diff_idx = [i for i, a in enumerate(args) if _is_diff(a)]
    if grad_outputs is None:
        outputs = [o for o in _as_tuple(func(*args)) if _is_diff(o)]
        rng = np.random.default_rng(0)
        grad_outputs = []
        for o in outputs:
            g = Tensor._wrap(rng.uniform(-1, 1, o._data.shape).astype(o._data.dtype))
            g.requires_grad_(True)
            grad_outputs.append(g)
        grad_outputs = tuple(grad_outputs)
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n_out = len(grad_outputs)

    def new_func(*all_args):
        input_args = all_args[:-n_out]
        grad_outs = all_args[-n_out:]
        outs = [o for o in _as_tuple(func(*input_args)) if _is_diff(o)]
        gs = grad(outs, [input_args[i] for i in diff_idx], list(grad_outs), create_graph=True,
                  allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(new_func, args + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
