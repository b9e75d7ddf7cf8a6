"""``add``/``sub`` with ``alpha`` round once, as PyTorch's CPU kernel's fused multiply-add does
(``engine/ops/fused.py``): ``p.add_(p.grad, alpha=-lr)``, the manual SGD step of many tutorials,
gives PyTorch's bits. Before, ``x + alpha * y`` rounded twice and about one float32 element in
five was a unit in the last place off."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from engine.ops.fused import EXACT_LIMIT, fma

torch = pytest.importorskip("torch")

# the second operand varies along the last dimension: PyTorch fuses every element
SHAPES = [((1000,), (1000,)), ((5,), (5,)), ((33,), (33,)), ((64, 16), (16,)), ((64, 16), (64, 1)),
          ((4, 5), (1, 5)), ((7, 3), (7, 3)), ((2, 3, 17), (3, 17))]
ALPHAS = [0.3, -1.7, 3.5, 0.1, 1e-3, -0.01]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", ["add", "sub"])
def test_add_and_sub_with_alpha_give_pytorchs_bits(dtype, op):
    rng = np.random.default_rng(0)
    for shape_a, shape_b in SHAPES:
        a = (rng.standard_normal(shape_a) * 10.0 ** rng.integers(-3, 3)).astype(dtype)
        b = rng.standard_normal(shape_b).astype(dtype)
        for alpha in ALPHAS:
            expected = getattr(torch, op)(torch.tensor(a), torch.tensor(b), alpha=alpha).numpy()
            got = getattr(engine, op)(engine.tensor(a), engine.tensor(b), alpha=alpha).numpy()
            np.testing.assert_array_equal(got, expected, err_msg=f"{shape_a} {shape_b} {alpha}")
            t, e = torch.tensor(a), engine.tensor(a)
            getattr(t, op + "_")(torch.tensor(b), alpha=alpha)
            getattr(e, op + "_")(engine.tensor(b), alpha=alpha)
            np.testing.assert_array_equal(e.numpy(), t.numpy())


def test_the_manual_sgd_step_of_the_tutorials_matches_over_many_steps():
    """``with no_grad(): p.add_(p.grad, alpha=-lr)`` for 50 steps: the same parameters, bit for
    bit (elementwise ops and a short sum only: PyTorch's matmul is MKL's, not numpy's)."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal(24).astype(np.float32)
    y = rng.standard_normal(24).astype(np.float32)
    w0 = rng.standard_normal(24).astype(np.float32)

    def train(lib):
        w = lib.tensor(w0, requires_grad=True)
        X, Y = lib.tensor(x), lib.tensor(y)
        for _ in range(50):
            loss = ((w * X - Y) ** 2).sum()
            loss.backward()
            with lib.no_grad():
                w.add_(w.grad, alpha=-0.003)
                w.grad.zero_()
        return w.detach().numpy()

    np.testing.assert_array_equal(train(engine), train(torch))


def test_fma_rounds_once_against_exact_rationals():
    from fractions import Fraction

    rng = np.random.default_rng(2)
    n = 3000
    u = rng.standard_normal(n) * 10.0 ** rng.integers(-5, 5, n)
    v = rng.standard_normal(n) * 10.0 ** rng.integers(-5, 5, n)
    w = -u * v * (1 + rng.standard_normal(n) * 10.0 ** rng.integers(-17, -1, n))  # cancellation
    w[: n // 4] = rng.standard_normal(n // 4)
    for dtype in (np.float64, np.float32):
        uu, vv, ww = u.astype(dtype), v.astype(dtype), w.astype(dtype)
        got = fma(uu, vv, ww)
        assert got.dtype == dtype
        exact = [dtype(float(Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))))
                 for a, b, c in zip(uu, vv, ww)]
        # float32: the exact value rounded to float32 through a double, which can only differ
        # from the correctly rounded one where the double is a tie: none of these are
        np.testing.assert_array_equal(got, np.array(exact, dtype=dtype))


def test_past_the_limit_the_two_roundings_stay_within_an_ulp():
    rng = np.random.default_rng(3)
    a = rng.standard_normal(EXACT_LIMIT + 1).astype(np.float32)
    b = rng.standard_normal(EXACT_LIMIT + 1).astype(np.float32)
    got = engine.tensor(a).add(engine.tensor(b), alpha=0.3).numpy()
    expected = torch.tensor(a).add(torch.tensor(b), alpha=0.3).numpy()
    # one unit of the operands' magnitude (a cancellation leaves a small sum: its own ulp is
    # no measure)
    unit = np.spacing(np.abs(a) + np.abs(np.float32(0.3) * b))
    assert np.all(np.abs(got - expected) <= unit)
    assert np.any(got != expected)  # the two roundings do show: this is the fast path


WARNINGS = """\
import warnings
warnings.simplefilter("always")
import {lib} as torch
x = torch.tensor([1.5], requires_grad=True)
with torch.no_grad():
    float(x)
int(x), x.item(), x.tolist()
float(x)
float(x * 2)
"""


def _warned(lib: str) -> list[str]:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", WARNINGS.format(lib=lib)], capture_output=True,
                          text=True, timeout=120, check=True)
    # "<string>:8: UserWarning: Converting ...": the place differs, the rest must not
    return [line.split(": ", 1)[1] if line.startswith("<string>:") else line
            for line in done.stderr.splitlines()]


def test_float_of_a_tensor_that_requires_grad_warns_once_as_pytorch():
    """``float()`` (not ``int()``, ``item()`` or ``tolist()``), with grad mode on, warns the
    first time only in a process (PyTorch's TORCH_WARN_ONCE): run each in a fresh one."""
    expected = _warned("torch")
    assert len(expected) == 2  # one warning, in two lines
    assert expected[0].startswith("UserWarning: Converting a tensor with requires_grad=True")
    assert _warned("engine") == expected


def test_each_run_in_the_debugger_warns_once_as_its_own_process():
    from engine.session import Session

    source = ("import torch\nx = torch.tensor([1.5], requires_grad=True)\n"
              "a = float(x)\nb = float(x)\n")
    for _ in range(2):  # the second run warns again: a new process would
        session = Session(source)
        session.continue_()
        converting = [w for w in session.warnings if "Converting a tensor" in w.message]
        assert [w.line for w in converting] == [3], session.warnings
