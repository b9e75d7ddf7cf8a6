"""The compiled normal fill (engine/_native/fill.c) against PyTorch and against the numpy code it
replaces, including torch's scalar build (``ATEN_CPU_CAPABILITY=default``, in a subprocess:
torch reads the variable once, at import).

tests/engine/test_random.py runs every stream through both paths in this process's torch build;
here the kernel's functions are checked one by one, on many values."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import engine
from engine import _native
from engine import random as erandom

ROOT = Path(__file__).resolve().parents[2]

needs_kernel = pytest.mark.skipif(not _native.built(),
                                  reason="the compiled kernel (engine/_native/fill.c) is not built")


@pytest.fixture
def kernel(monkeypatch):
    monkeypatch.delenv("GRADSTEP_NATIVE", raising=False)
    return _native.kernel()


def _uniforms(seed: int, n: int, dtype) -> np.ndarray:
    g = erandom.Generator().manual_seed(seed)
    return (erandom._uniform01_f64 if dtype == np.float64 else erandom._uniform01_f32)(g, n)


@needs_kernel
@pytest.mark.parametrize("mean, std", [(0.0, 1.0), (0.3, 2.7), (-1.5, 0.1)])
@pytest.mark.parametrize("mode", ["avx2", "default"])
def test_fill16_equals_the_numpy_emulation(kernel, monkeypatch, mode, mean, std):
    """16 * 50000 uniforms through the kernel and through ``_box_muller16_*``, for each of
    torch's float fills (the double fill is the scalar template in both builds)."""
    if mode == "avx2" and not kernel.AVX2:
        pytest.skip("no AVX2 on this CPU")
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", mode)
    for dtype, emulate in ((np.float32, erandom._box_muller16_f32),
                           (np.float64, erandom._box_muller16_f64)):
        u = _uniforms(7, 16 * 50000, dtype)
        m, s = (np.float32(mean), np.float32(std)) if dtype == np.float32 else (mean, std)
        expected = emulate(u.reshape(-1, 16), m, s).reshape(-1)
        kernel.fill16(u, float(m), float(s), mode == "avx2" and dtype == np.float32)
        assert u.dtype == dtype and np.array_equal(u, expected), dtype


@needs_kernel
def test_uniform_and_fma_equal_the_numpy_code(kernel, monkeypatch):
    for dtype in (np.float32, np.float64):
        mine = _uniforms(11, 10**5 + 3, dtype)
        g = erandom.Generator().manual_seed(11)
        monkeypatch.setenv("GRADSTEP_NATIVE", "0")
        ref = (erandom._uniform01_f64 if dtype == np.float64 else erandom._uniform01_f32)(
            g, 10**5 + 3)
        fma = erandom._fma64 if dtype == np.float64 else erandom._fma32
        b, c = dtype(3.7), dtype(-1.25)
        ref_fma = fma(ref, b, c)
        monkeypatch.delenv("GRADSTEP_NATIVE")
        assert np.array_equal(mine, ref)
        assert np.array_equal(fma(mine, b, c), ref_fma)


@needs_kernel
def test_the_kernel_refuses_what_it_cannot_fill(kernel):
    with pytest.raises(ValueError, match="rows of 16"):
        kernel.fill16(np.zeros(17, np.float32), 0.0, 1.0, False)
    with pytest.raises(TypeError, match="float32 or float64"):
        kernel.fill16(np.zeros(16, np.int32), 0.0, 1.0, False)
    with pytest.raises(ValueError, match="float32 only"):
        kernel.fill16(np.zeros(16, np.float64), 0.0, 1.0, True)
    with pytest.raises(ValueError, match="C-contiguous"):
        kernel.uniform(np.random.MT19937(0).capsule, np.zeros(32, np.float32)[::2])
    with pytest.raises(ValueError, match="PyCapsule"):
        kernel.uniform(object(), np.zeros(4, np.float32))


def test_gradstep_native_0_falls_back_to_numpy(monkeypatch):
    monkeypatch.setenv("GRADSTEP_NATIVE", "0")
    assert _native.kernel() is None
    engine.manual_seed(3)
    a = engine.randn(100)._data.copy()
    monkeypatch.delenv("GRADSTEP_NATIVE")
    engine.manual_seed(3)
    assert np.array_equal(engine.randn(100)._data, a)


# In a subprocess whose torch runs its scalar kernels: torch's draws, and the engine's on each path.
# There the normal fill calls libm's logf/cosf/sinf, and `x * b + c` (uniform_'s bounds, the
# per-element normal's mean and std) is not fused into an FMA.
_SCALAR_PROBE = """
import json, os
import numpy as np
import torch
import engine
import engine.nn
from engine import _native
out = {"capability": torch.backends.cpu.get_cpu_capability(), "built": _native.built()}
def cases(n, dt):
    return [lambda t: t.empty(n, dtype=getattr(t, dt)).normal_(),
            lambda t: t.empty(n, dtype=getattr(t, dt)).normal_(0.3, 2.7),
            lambda t: t.empty(n, 2, dtype=getattr(t, dt))[:, 0].normal_(-1.5, 0.1),
            lambda t: t.empty(n, dtype=getattr(t, dt)).uniform_(-0.37, 1.3),
            lambda t: t.nn.init.kaiming_uniform_(t.empty(n, 3, dtype=getattr(t, dt)))]
for path in ("native", "numpy"):
    os.environ["GRADSTEP_NATIVE"] = "1" if path == "native" else "0"
    same = []
    for seed in (0, 1, 42):
        for n in (5, 16, 17, 31, 4099):
            for dt in ("float32", "float64", "float16"):
                for case in cases(n, dt):
                    torch.manual_seed(seed)
                    ref = case(torch).numpy()
                    engine.manual_seed(seed)
                    same.append(bool(np.array_equal(case(engine)._data, ref)))
    out[path] = same
print(json.dumps(out))
"""


@pytest.mark.torch
def test_the_scalar_build_matches_torchs_default_capability():
    pytest.importorskip("torch")
    env = {**os.environ, "ATEN_CPU_CAPABILITY": "default", "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-c", _SCALAR_PROBE], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=600, check=False)
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout.strip().splitlines()[-1])
    assert found["capability"] == "DEFAULT"
    assert found["numpy"] and all(found["numpy"])
    if found["built"]:
        assert found["native"] and all(found["native"])
