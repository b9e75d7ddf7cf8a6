"""The deprecated ``Module.register_backward_hook`` (and ``register_module_backward_hook``) against
torch 2.13: the hook is a post-hook on the grad_fn of the module's first output tensor, called as
``hook(module, grad_input, grad_output)`` of that one node, a returned tuple replacing
``grad_input``; torch's FutureWarnings say when that node is not the whole module
(``_maybe_warn_non_full_backward_hook``). Each snippet runs in torch and in the engine
(``differential.check``), hook logs and warnings included."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from tests.engine.differential import check

pytest.importorskip("torch")

RNG = np.random.default_rng(5)
X32 = RNG.standard_normal((3, 2)).astype(np.float32)
W42 = RNG.standard_normal((4, 2)).astype(np.float32)
B4 = RNG.standard_normal(4).astype(np.float32)


def _linear(lib):
    m = lib.nn.Linear(2, 4)
    m.load_state_dict({"weight": lib.tensor(W42), "bias": lib.tensor(B4)})
    return m


def _logger(log):
    def hook(module, grad_input, grad_output):
        # clones: compared by value and flags, not by version counter
        log.append((type(module).__name__,
                    tuple(None if g is None else g.clone() for g in grad_input),
                    tuple(None if g is None else g.clone() for g in grad_output)))

    return hook


def _warned(run):
    """``run()``'s result and its warnings (message and category: torch's point into torch's
    own module.py, as the engine's point into the engine)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = run()
    return out, [(str(w.message), w.category.__name__) for w in caught]


def _backward(lib, build, *, ask_input=True):
    m = build(lib)
    log = []
    m.register_backward_hook(_logger(log))
    x = lib.tensor(X32, requires_grad=ask_input)

    def run():
        out = m(x)
        first = out if isinstance(out, lib.Tensor) else (
            out["a"] if isinstance(out, dict) else out[0])
        (first * first).sum().backward()

    _, caught = _warned(run)
    return log, caught, x.grad, [p.grad for p in m.parameters()]


class _Pair:
    """Builds a module whose forward returns two tensors of two different nodes."""

    def __call__(self, lib):
        class Pair(lib.nn.Module):
            def forward(self, x):
                return x * 2, x.exp()

        return Pair()


class _Dict:
    def __call__(self, lib):
        class Dict(lib.nn.Module):
            def forward(self, x):
                return {"a": x * 2}

        return Dict()


class _Scaled:
    """A module taking a number as a second positional argument."""

    def __call__(self, lib):
        class Scaled(lib.nn.Module):
            def forward(self, x, scale=3.0):
                return x * scale

        class Caller(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = Scaled()

            def forward(self, x):
                return self.inner(x, 3.0)

        outer = Caller()
        return outer.inner, outer


@pytest.mark.parametrize("build", [
    _linear,
    lambda lib: lib.nn.Tanh(),
    lambda lib: lib.nn.Sequential(_linear(lib), lib.nn.Tanh()),
    _Pair(),
    _Dict(),
], ids=["linear", "tanh", "sequential", "two nodes", "dict output"])
def test_hook_arguments_and_warnings(build):
    check(lambda lib: _backward(lib, build))


def test_input_not_requiring_grad():
    check(lambda lib: _backward(lib, _linear, ask_input=False))


def test_non_tensor_input_warns():
    def snippet(lib):
        inner, outer = _Scaled()(lib)
        log = []
        inner.register_backward_hook(_logger(log))
        x = lib.tensor(X32, requires_grad=True)
        _, caught = _warned(lambda: outer(x).sum().backward())
        return log, caught, x.grad

    check(snippet)


def test_hook_replaces_grad_input():
    def snippet(lib):
        m = _linear(lib)
        m.register_backward_hook(lambda mod, gi, go: tuple(
            None if g is None else g * 10 for g in gi))
        x = lib.tensor(X32, requires_grad=True)
        m(x).sum().backward()
        return x.grad, m.weight.grad, m.bias.grad

    check(snippet)


def test_hook_returning_the_wrong_count_names_the_hook():
    def snippet(lib):
        m = _linear(lib)

        def too_few(module, grad_input, grad_output):
            return grad_input[:1]

        m.register_backward_hook(too_few)
        m(lib.tensor(X32, requires_grad=True)).sum().backward()

    check(snippet)


def test_removed_hook_and_the_global_hook():
    def snippet(lib):
        g = lib.nn.modules.module if lib.__name__ == "torch" else _engine_globals()
        m = _linear(lib)
        log = []
        handle = m.register_backward_hook(lambda *a: log.append("removed"))
        handle.remove()
        global_handle = g.register_module_backward_hook(_logger(log))
        try:
            x = lib.tensor(X32, requires_grad=True)
            m(x).sum().backward()
        finally:
            global_handle.remove()
        return log, x.grad

    check(snippet)


def _engine_globals():
    from engine.nn import module

    return module
