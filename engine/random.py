"""PyTorch's CPU random streams, bit for bit (and ``torch.random``'s functions).

``Generator`` reproduces ``at::CPUGeneratorImpl``: an mt19937 seeded with the standard 32-bit
``init_genrand(seed & 0xffffffff)`` (numpy's ``MT19937._legacy_seeding``; its full-range uint32
draws are the 32-bit outputs), ``random64()`` = ``(first << 32) | second``, and the cached second
Box-Muller normal (a double, shared by every per-element normal). Every distribution below is
PyTorch's CPU kernel (ATen/core/DistributionsHelper.h, TransformationHelper.h,
native/cpu/DistributionTemplates.h) written as numpy array code: a draw of n numbers takes n (or
2n) 32-bit outputs at once, never a Python loop per number (randperm's swaps are resolved without
one too); only gamma's rejection sampler, whose draw count varies per element, runs per element.

The float32 normal fill (numel >= 16, contiguous) is where PyTorch's own float math shows: on
AVX2/AVX512 CPUs it runs avx_mathfun's ``log256_ps``/``sincos256_ps`` (Cephes polynomials, with
the multiply-adds GCC contracted into FMAs); the scalar build (``ATEN_CPU_CAPABILITY=default``)
calls glibc's ``logf``/``sinf``/``cosf``. The compiled kernel (engine/_native/fill.c, optional)
runs those very operations, and also draws the uniforms and does the FMAs of uniform_/normal_.
Without it (or with ``GRADSTEP_NATIVE=0``) the same numbers come from numpy: avx_mathfun emulated
operation by operation in float32 with exact FMAs (``_round_sum``), glibc's float functions by
``_logf``/``_sincosf`` (same tables and polynomials, checked against libm on all 2**24 inputs the
fill can pass), and doubles through Python's ``math`` (the C library's ``log``/``log1p``; numpy's
own round differently).
"""

from __future__ import annotations

import contextlib
import math
import os

import numpy as np

from . import _native
from . import dtypes as _dt

DEFAULT_SEED = 67280421310721  # c10::detail::default_rng_seed_val
_STATE_SIZE = 5056  # sizeof(CPUGeneratorImplState)
_LEGACY_STATE_SIZE = 5048
_M24 = np.uint32((1 << 24) - 1)
_M53 = np.uint64((1 << 53) - 1)
_TWO_PI = 2.0 * math.pi
_U64 = 0xFFFF_FFFF_FFFF_FFFF


class Generator:
    """``torch.Generator()`` on the CPU: ``manual_seed``, ``initial_seed``, ``seed``,
    ``get_state``/``set_state`` (PyTorch's 5056-byte uint8 state)."""

    def __init__(self, device="cpu") -> None:
        self._bits = np.random.MT19937(0)
        self._np = np.random.Generator(self._bits)  # its full-range uint32 draws are random_raw's
        self._reseed(DEFAULT_SEED)

    @property
    def device(self):
        from .tensor import device

        return device("cpu")

    # -- seeding ---------------------------------------------------------------------------------
    def _reseed(self, seed: int) -> None:
        self._seed = seed
        if hasattr(self._bits, "_legacy_seeding"):
            self._bits._legacy_seeding(seed & 0xFFFFFFFF)
        else:  # init_genrand, then the first draw regenerates the block (pos 624)
            key = [seed & 0xFFFFFFFF]
            for i in range(1, 624):
                prev = key[-1]
                key.append((1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF)
            self._bits.state = {"bit_generator": "MT19937",
                                "state": {"key": np.array(key, np.uint32), "pos": 624}}
        self._fresh = True  # PyTorch's ``next_`` is 0 until the first draw
        self._next_double = None  # next_double_normal_sample_
        self._next_float = None  # next_float_normal_sample_

    def manual_seed(self, seed) -> "Generator":
        self._reseed(_seed_value(seed))
        return self

    def initial_seed(self) -> int:
        return self._seed

    def seed(self) -> int:
        """A non-deterministic seed (as PyTorch, from the OS), used and returned."""
        s = int.from_bytes(os.urandom(8), "little")
        self._reseed(s)
        return s

    # -- state -----------------------------------------------------------------------------------
    def get_state(self):
        from .tensor import Tensor

        st = self._bits.state["state"]
        pos = int(st["pos"])
        buf = bytearray(_STATE_SIZE)
        left = 625 - pos
        nxt = 0 if self._fresh else pos
        buf[0:8] = self._seed.to_bytes(8, "little")
        buf[8:12] = left.to_bytes(4, "little", signed=True)
        buf[12:16] = (1).to_bytes(4, "little", signed=True)  # seeded
        buf[16:24] = nxt.to_bytes(8, "little")
        buf[24:24 + 624 * 8] = st["key"].astype("<u8").tobytes()
        if self._next_double is not None:
            buf[5024:5032] = np.float64(self._next_double).tobytes()  # normal_y
            buf[5040:5044] = (1).to_bytes(4, "little")  # normal_is_valid
        if self._next_float is not None:
            buf[5048:5052] = np.float32(self._next_float).tobytes()
            buf[5052] = 1
        return Tensor._wrap(np.frombuffer(bytes(buf), dtype=np.uint8).copy())

    def set_state(self, new_state) -> "Generator":
        arr = new_state._data if hasattr(new_state, "_data") else np.asarray(new_state)
        if arr.dtype != np.uint8:
            raise TypeError(f"expected a torch.ByteTensor, but got {_type_name(arr)}")
        raw = arr.reshape(-1).tobytes()
        if len(raw) not in (_STATE_SIZE, _LEGACY_STATE_SIZE):
            raise RuntimeError(
                "Expected either a THGeneratorState of size 5048 or a CPUGeneratorImplState of "
                f"size 5056 but found the input RNG state size to be {len(raw)}")
        seed = int.from_bytes(raw[0:8], "little")
        left = int.from_bytes(raw[8:12], "little", signed=True)
        nxt = int.from_bytes(raw[16:24], "little")
        key = np.frombuffer(raw[24:24 + 624 * 8], dtype="<u8").astype(np.uint32)
        self._seed = seed
        self._bits.state = {"bit_generator": "MT19937",
                            "state": {"key": key, "pos": min(max(625 - left, 0), 624)}}
        self._fresh = nxt == 0
        valid = int.from_bytes(raw[5040:5044], "little", signed=True)
        self._next_double = float(np.frombuffer(raw[5024:5032], np.float64)[0]) if valid else None
        self._next_float = None
        if len(raw) == _STATE_SIZE and raw[5052]:
            self._next_float = float(np.frombuffer(raw[5048:5052], np.float32)[0])
        return self

    # the session's snapshot of a run's stream (cheaper than the byte tensor)
    def _snapshot(self):
        return (self._seed, self._bits.state, self._fresh, self._next_double, self._next_float)

    def _restore(self, snap) -> None:
        self._seed, state, self._fresh, self._next_double, self._next_float = snap
        self._bits.state = state

    # -- raw draws -------------------------------------------------------------------------------
    def _u32(self, n: int) -> np.ndarray:
        """n outputs of ``random()`` (a uint32 array)."""
        if n <= 0:
            return np.empty(0, np.uint32)
        self._fresh = False
        return self._np.integers(0, 1 << 32, size=n, dtype=np.uint32)

    def _u64(self, n: int) -> np.ndarray:
        """n outputs of ``random64()``: two 32-bit draws, the first the high half."""
        r = self._u32(2 * n)
        return (r[0::2].astype(np.uint64) << np.uint64(32)) | r[1::2]

    def __repr__(self) -> str:
        return f"<torch._C.Generator object at 0x{id(self):x}>"


def _type_name(arr) -> str:
    names = {"float32": "torch.FloatTensor", "float64": "torch.DoubleTensor",
             "int64": "torch.LongTensor", "int32": "torch.IntTensor", "bool": "torch.BoolTensor"}
    return names.get(arr.dtype.name, "torch.Tensor")


def _seed_value(seed) -> int:
    if hasattr(seed, "item"):
        seed = seed.item()
    if isinstance(seed, float) or isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"manual_seed expected a long, but got {type(seed).__name__}")
    seed = int(seed)
    if seed < -(1 << 63) or seed > _U64:
        raise RuntimeError("Overflow when unpacking long long")
    return seed & _U64


default_generator = Generator()


def _gen(generator) -> Generator:
    return default_generator if generator is None else generator


# -- torch.random ---------------------------------------------------------------------------------

def manual_seed(seed) -> Generator:
    """Seed the default generator (returns it, as PyTorch)."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type="cuda"):
    """The default generator's state is put back when the block ends."""
    if not enabled:
        yield
        return
    saved = default_generator._snapshot()
    try:
        yield
    finally:
        default_generator._restore(saved)


# -- glibc's float32 logf / sinf / cosf (what the float normal fill calls) -------------------------

def _hexes(text):
    return np.array([float.fromhex(h) for h in text.split()])


_LOGF_INVC = _hexes("""0x1.661ec79f8f3bep+0 0x1.571ed4aaf883dp+0 0x1.49539f0f010bp+0
    0x1.3c995b0b80385p+0 0x1.30d190c8864a5p+0 0x1.25e227b0b8eap+0 0x1.1bb4a4a1a343fp+0
    0x1.12358f08ae5bap+0 0x1.0953f419900a7p+0 0x1p+0 0x1.e608cfd9a47acp-1 0x1.ca4b31f026aap-1
    0x1.b2036576afce6p-1 0x1.9c2d163a1aa2dp-1 0x1.886e6037841edp-1 0x1.767dcf5534862p-1""")
_LOGF_LOGC = _hexes("""-0x1.57bf7808caadep-2 -0x1.2bef0a7c06ddbp-2 -0x1.01eae7f513a67p-2
    -0x1.b31d8a68224e9p-3 -0x1.6574f0ac07758p-3 -0x1.1aa2bc79c81p-3 -0x1.a4e76ce8c0e5ep-4
    -0x1.1973c5a611cccp-4 -0x1.252f438e10c1ep-5 0x0p+0 0x1.aa5aa5df25984p-5 0x1.c5e53aa362eb4p-4
    0x1.526e57720db08p-3 0x1.bc2860d22477p-3 0x1.1058bc8a07ee1p-2 0x1.4043057b6ee09p-2""")
_LN2 = float.fromhex("0x1.62e42fefa39efp-1")
_LA0, _LA1, _LA2 = _hexes("-0x1.00ea348b88334p-2 0x1.5575b0be00b6ap-2 -0x1.ffffef20a4123p-2")


def _logf(x: np.ndarray) -> np.ndarray:
    """glibc's ``logf`` for positive normal float32 ``x`` (the fill's ``1 - u`` always is)."""
    ix = np.ascontiguousarray(x, np.float32).view(np.uint32).astype(np.int64)
    tmp = ix - 0x3F330000
    i = (tmp >> 19) & 15
    k = tmp >> 23
    z = (ix - (tmp & (0x1FF << 23))).astype(np.uint32).view(np.float32).astype(np.float64)
    r = z * _LOGF_INVC[i] - 1
    y0 = _LOGF_LOGC[i] + k * _LN2
    r2 = r * r
    y = _LA1 * r + _LA2
    y = _LA0 * r2 + y
    y = y * r2 + (y0 + r)
    out = y.astype(np.float32)
    out[ix == 0x3F800000] = 0
    return out


_HPI_INV = float.fromhex("0x1.45F306DC9C883p-1")
_HPI = float.fromhex("0x1.921FB54442D18p0")
_SC_C = _hexes("0x1p0 -0x1.ffffffd0c621cp-2 0x1.55553e1068f19p-5 -0x1.6c087e89a359dp-10 "
               "0x1.99343027bf8c3p-16")
_SC_S = _hexes("-0x1.555545995a603p-3 0x1.1107605230bc4p-7 -0x1.994eb3774cf24p-13")
_TINY_TOP = 0x398  # abstop12(0x1p-12f)


def _sincosf(y: np.ndarray):
    """glibc's ``sinf`` and ``cosf`` of float32 ``y``, 0 <= y < 120 (the fill's theta)."""
    x = y.astype(np.float64)
    n = np.rint(x * _HPI_INV)
    xr = x - n * _HPI
    ni = n.astype(np.int64)
    odd = (ni & 1).astype(bool)
    q = ni & 3
    xs = np.where((q == 1) | (q == 2), -xr, xr)
    x2 = xr * xr
    x3 = xs * x2
    s1 = _SC_S[1] + x2 * _SC_S[2]
    x7 = x3 * x2
    ps = (xs + x3 * _SC_S[0]) + x7 * s1
    c = _SC_C
    x4 = x2 * x2
    c2 = c[3] + x2 * c[4]
    c1 = c[0] + x2 * c[1]
    x6 = x4 * x2
    pc = (c1 + x4 * c[2]) + x6 * c2
    pc = np.where(ni & 2, -pc, pc)
    sin = np.where(odd, pc, ps).astype(np.float32)
    cos = np.where(odd, ps, pc).astype(np.float32)
    tiny = ((y.view(np.uint32) >> 20) & 0x7FF) < _TINY_TOP
    if tiny.any():
        sin[tiny] = y[tiny]
        cos[tiny] = 1.0
    return sin, cos


def _map(fn, a: np.ndarray) -> np.ndarray:
    """The C library's double ``fn`` elementwise (numpy's own log/log1p round differently)."""
    return np.fromiter(map(fn, a.reshape(-1).tolist()), np.float64, a.size).reshape(a.shape)


# a double is halfway between two float32 values when its 29 mantissa bits below float32
# precision are 1000...0: shifted left by 35 they read 2**63
_TIE_SHIFT = np.uint64(35)
_TIE_TOP = np.uint64(1 << 63)


def _round_sum(s: np.ndarray, a, b, c) -> np.ndarray:
    """``s`` = fl64(a * b + c) (the product exact) rounded to float32 as one rounding of the exact
    value: a double exactly halfway between two floats is moved off the tie, towards the exact
    sum, before it is rounded (else round-half-even could go the wrong way)."""
    # the tie test in two passes (shift the 29 low bits to the top, compare), no temporaries
    # beyond one integer array: this runs after every multiply-add of the float fill
    low = np.left_shift(s.view(np.uint64), _TIE_SHIFT)
    tie = low == _TIE_TOP
    if tie.any():
        idx = np.nonzero(tie)[0]
        sub = s.reshape(-1)[idx]
        p = (np.asarray(a, np.float32).reshape(-1)[idx].astype(_D)
             * (np.asarray(b, np.float32).reshape(-1)[idx] if np.ndim(b) else _D(b)))
        cc = np.asarray(c, np.float32).reshape(-1)[idx].astype(_D) if np.ndim(c) else _D(c)
        bp = sub - cc
        err = (p - bp) + (cc - (sub - bp))  # TwoSum: sub + err == p + cc exactly
        moved = np.where(err != 0, np.nextafter(sub, np.copysign(np.inf, err)), sub)
        s = s.copy()
        s.reshape(-1)[idx] = moved
    return s.astype(_F)


def _fma_native(a, b, c, dtype, inplace: bool):
    """``fma(a, b, c)`` for scalar b, c by the compiled kernel (``fmaf`` for float32), or None
    without it. ``inplace`` writes into ``a`` itself when it is a contiguous array of ``dtype``."""
    k = _native.kernel()
    if k is None or np.ndim(b) or np.ndim(c):
        return None
    if not (inplace and isinstance(a, np.ndarray) and a.dtype == dtype
            and a.flags.c_contiguous and a.flags.writeable):
        a = np.array(a, dtype, order="C")
    k.fma(a, float(b), float(c))
    return a


def _fma32(a, b, c, inplace=False) -> np.ndarray:
    """``fmaf(a, b, c)`` elementwise on float32 values (b, c scalars or arrays). In numpy: the
    product is exact in double; ``_round_sum`` makes the rounding to float the single one fmaf
    does."""
    v = _fma_native(a, b, c, np.float32, inplace)
    if v is not None:
        return v
    scalars = np.ndim(b) == 0 and np.ndim(c) == 0
    if scalars and b == 1 and c == 0:
        return a + np.float32(0)
    if scalars and np.ndim(a) == 1 and a.size > 2 * _CHUNK:
        # block by block, so that the double temporaries stay in the CPU cache (2x faster)
        out = np.empty(a.size, np.float32)
        for i in range(0, a.size, _CHUNK):
            out[i:i + _CHUNK] = _fma32(a[i:i + _CHUNK], b, c)
        return out
    s = np.asarray(a, np.float32).astype(_D)
    s *= np.asarray(b, np.float32).astype(_D) if np.ndim(b) else _D(np.float32(b))
    s += np.asarray(c, np.float32).astype(_D) if np.ndim(c) else _D(np.float32(c))
    return _round_sum(s, a, b, c)


# -- avx_mathfun.h's log256_ps / sincos256_ps (the float fill on AVX2 and AVX512 CPUs) -------------
# Plain float32 arithmetic in the header's order; GCC contracts each multiply feeding an add into
# an FMA (checked against torch on 16M normals), written here as _fma32.

_F = np.float32
_CEPHES_LOG = [_F(v) for v in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1,
                               -1.2420140846E-1, 1.4249322787E-1, -1.6668057665E-1,
                               2.0000714765E-1, -2.4999993993E-1, 3.3333331174E-1)]
_LOG_Q1, _LOG_Q2 = _F(-2.12194440e-4), _F(0.693359375)
_SQRTHF = _F(0.707106781186547524)
_FOPI = _F(1.27323954473516)
_DP = (_F(-0.78515625), _F(-2.4187564849853515625e-4), _F(-3.77489497744594108e-8))
_COSCOF = [_F(v) for v in (2.443315711809948E-005, -1.388731625493765E-003,
                           4.166664568298827E-002)]
_SINCOF = [_F(v) for v in (-1.9515295891E-4, 8.3321608736E-3, -1.6666654611E-1)]


_D = np.float64


def _fma_f(a, b, c) -> np.ndarray:
    """``fmaf`` on float32 arrays / scalars: ``_fma32`` without its conversions."""
    s = a.astype(_D)
    s *= b
    s += c
    return _round_sum(s, a, b, c)


def _fma_step(s: np.ndarray, y: np.ndarray, x: np.ndarray, x64: np.ndarray, c) -> np.ndarray:
    """``fmaf(y, x, c)`` for float32 arrays ``y``, ``x`` (``x64``: x as doubles) and a float32
    scalar or array ``c``, computed in the double scratch array ``s``."""
    np.copyto(s, y)  # a plain widening pass: numpy's mixed-type multiply is slower
    s *= x64
    s += c
    return _round_sum(s, y, x, c)


def _horner(s: np.ndarray, x: np.ndarray, x64: np.ndarray, coefs) -> np.ndarray:
    """The polynomial ``coefs`` (highest degree first) at float32 ``x`` by Horner's rule, each
    step one ``fmaf`` (as GCC contracts avx_mathfun's mul-then-add)."""
    np.multiply(x64, _D(coefs[0]), out=s)
    s += _D(coefs[1])
    y = _round_sum(s, x, coefs[0], coefs[1])
    for c in coefs[2:]:
        y = _fma_step(s, y, x, x64, c)
    return y


def _log256(x: np.ndarray) -> np.ndarray:
    """log256_ps of float32 x in (0, 1]."""
    bits = x.view(np.uint32)
    e = (bits >> 23).view(np.int32)
    e -= 126
    e = e.astype(_F)
    x = ((bits & np.uint32(0x807FFFFF)) | np.uint32(0x3F000000)).view(_F)
    mask = x < _SQRTHF
    tmp = x * mask  # x where x < SQRTHF, else 0
    x -= _F(1)
    e -= mask
    x += tmp
    z = x * x
    x64 = x.astype(_D)
    y = _horner(np.empty_like(x64), x, x64, _CEPHES_LOG)
    y *= x
    y = _fma_f(y, z, e * _LOG_Q1)
    z *= _F(0.5)
    y -= z
    x += y
    e *= _LOG_Q2
    x += e
    return x


def _sincos256(x: np.ndarray):
    """(sin, cos) as sincos256_ps, of float32 x in [0, 2*pi]."""
    j = (x * _FOPI).astype(np.int32)
    j += 1
    j >>= 1  # (j + 1) & ~1, halved: 0..4
    y = (j + j).astype(_F)
    x = x + y * _DP[0]  # y * DP1 and y * DP2 are exact for these y: no FMA needed
    x += y * _DP[1]
    x = _fma_f(y, _DP[2], x)
    z = x * x
    z64 = z.astype(_D)
    s = np.empty_like(z64)
    c = _horner(s, z, z64, _COSCOF)
    c *= z
    c = _fma_step(s, c, z, z64, -(z * _F(0.5)))
    c += _F(1)
    sn = _horner(s, z, z64, _SINCOF)
    sn *= z
    sn = _fma_step(s, sn, x, x.astype(_D), x)
    odd = (j & 1).astype(bool)  # j // 2 odd: sin takes the cosine polynomial and cos the sine's
    sin = np.where(odd, c, sn)
    cos = np.where(odd, sn, c)
    # the sign flips: sin for j // 2 in {2, 3}, cos for {1, 2} (an XOR of the sign bit, as there)
    sin.view(np.uint32)[...] ^= ((j & 2) << 30).view(np.uint32)
    j += 1
    cos.view(np.uint32)[...] ^= ((j & 2) << 30).view(np.uint32)
    return sin, cos


_CAPABILITY = None


def _cpu_capability() -> str:
    """Which float fill PyTorch runs here: its AVX2 code on x86-64 CPUs with AVX2 (AVX512 ones
    too), the scalar code otherwise; ``ATEN_CPU_CAPABILITY=default`` forces the scalar code, as it
    does for torch."""
    global _CAPABILITY
    forced = os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
    if forced:
        return "default" if forced == "default" else "avx2"
    if _CAPABILITY is None:
        import platform

        _CAPABILITY = "default"
        if platform.machine().lower() in ("x86_64", "amd64", "i386", "i686"):
            _CAPABILITY = "avx2"
            try:
                with open("/proc/cpuinfo") as f:
                    flags = next((line for line in f if line.startswith("flags")), "")
                if flags and " avx2" not in flags:
                    _CAPABILITY = "default"
            except OSError:
                pass
    return _CAPABILITY


def _mul_add(a, b, c, dtype, inplace=False) -> np.ndarray:
    """``a * b + c`` of ``transformation::uniform_real`` / ``transformation::normal`` (b, c
    scalars), in ``dtype``: GCC contracts it into one FMA in torch's AVX2/AVX512 kernels, while
    x86-64's scalar build (``ATEN_CPU_CAPABILITY=default``, no FMA instruction) rounds the product
    and the sum apart. (The normal fill's own ``std::fma`` is an FMA in every build.)"""
    if _cpu_capability() != "default":
        return (_fma64 if dtype == np.float64 else _fma32)(a, b, c, inplace)
    return np.asarray(a, dtype) * dtype(b) + dtype(c)


def _split(a):
    t = a * 134217729.0  # 2**27 + 1
    hi = t - (t - a)
    return hi, a - hi


def _fma64(a, b, c, inplace=False) -> np.ndarray:
    """``fma(a, b, c)`` for doubles (b, c scalars). In numpy: error-free product and sum (exact
    but for ties of the final rounding, which need an exact sum of three doubles)."""
    b, c = np.float64(b), np.float64(c)
    v = _fma_native(a, b, c, np.float64, inplace)
    if v is not None:
        return v
    if b == 1 and c == 0:
        return a + 0.0
    if a.ndim == 1 and a.size > 2 * _CHUNK:  # in cache-sized blocks, as _fma32
        out = np.empty(a.size, np.float64)
        for i in range(0, a.size, _CHUNK):
            out[i:i + _CHUNK] = _fma64(a[i:i + _CHUNK], b, c)
        return out
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    bp = s - c
    t = (p - bp) + (c - (s - bp))
    return s + (t + e)


# -- distributions: flat numpy arrays in PyTorch's draw order ------------------------------------

def _into(values: np.ndarray, out: np.ndarray | None) -> np.ndarray:
    """``values``, or ``out`` holding them (a flat array the caller wants filled)."""
    if out is None or values is out:
        return values
    out[...] = values
    return out


def _uniform01(g: Generator, n: int, dtype, out) -> np.ndarray | None:
    """n uniforms drawn by the compiled kernel straight from the bit generator's C interface
    (into ``out`` when it is given), or None without the kernel."""
    k = _native.kernel()
    if k is None or n <= 0:
        return None
    if out is None:
        out = np.empty(n, dtype)
    g._fresh = False
    with g._bits.lock:  # as numpy's own draws hold it
        k.uniform(g._bits.capsule, out)
    return out


def _uniform01_f32(g: Generator, n: int, out=None) -> np.ndarray:
    """``uniform_real_distribution<float>(0, 1)``: 24 random bits of one 32-bit draw (written
    into ``out``, a flat contiguous float32 array, when given)."""
    u = _uniform01(g, n, np.float32, out)
    if u is not None:
        return u
    r = g._u32(n)
    r &= _M24
    u = r.view(np.int32).astype(np.float32)
    u *= np.float32(2.0 ** -24)
    return _into(u, out)


def _uniform01_f64(g: Generator, n: int, out=None) -> np.ndarray:
    """``uniform_real_distribution<double>(0, 1)``: 53 random bits of one random64() (into
    ``out``, a flat contiguous float64 array, when given)."""
    u = _uniform01(g, n, np.float64, out)
    if u is not None:
        return u
    return _into((g._u64(n) & _M53).astype(np.float64) * (2.0 ** -53), out)


def uniform(g: Generator, n: int, low: float, high: float, dtype, out=None) -> np.ndarray:
    """``uniform_kernel``: float via 24 random bits, double via 53; ``x * (to - from) + from``
    in the kernel's precision, a result rounded up to ``to`` becoming ``from``. ``out``: a flat
    C-contiguous array of ``dtype`` to fill (and return) instead of a new one."""
    dtype = np.dtype(dtype)
    direct = out if dtype in (np.float32, np.float64) else None
    if dtype == np.float64:
        x = _uniform01_f64(g, n, direct)
        lo, hi = np.float64(low), np.float64(high)
        v = x if (lo == 0 and hi == 1) else _mul_add(x, hi - lo, lo, np.float64, inplace=True)
        to_s, from_s = hi, lo
    else:
        x = _uniform01_f32(g, n, direct)
        lo, hi = np.float32(low), np.float32(high)
        v = x if (lo == 0 and hi == 1) else _mul_add(x, hi - lo, lo, np.float32, inplace=True)
        v = v.astype(dtype, copy=False)
        to_s, from_s = dtype.type(high), dtype.type(low)
    v[v == to_s] = from_s
    return _into(v, out)


_CHUNK = 1 << 15  # rows of work that stay in the CPU cache across the many passes


def _box_muller16_f32(d: np.ndarray, mean, std) -> np.ndarray:
    """PyTorch's ``NormalFill16<float>`` on rows of 16 uniforms (a (k, 16) array), in numpy: the
    AVX2 specialisation (avx_mathfun), or the scalar template with glibc's logf/cosf/sinf. Done
    in cache-sized blocks of rows (the many passes over each stay in the CPU cache)."""
    out = np.empty_like(d)
    rows = max(1, _CHUNK // 16)
    scalar = _cpu_capability() == "default"
    for i in range(0, d.shape[0], rows):
        blk = d[i:i + rows]
        u1 = (np.float32(1) - blk[:, :8]).reshape(-1)
        u2 = np.ascontiguousarray(blk[:, 8:]).reshape(-1)
        if scalar:
            radius = np.sqrt(np.float32(-2) * _logf(u1))
            theta = (_TWO_PI * u2.astype(np.float64)).astype(np.float32)
            sin, cos = _sincosf(theta)
        else:
            radius = _log256(u1)
            radius *= np.float32(-2)
            np.sqrt(radius, out=radius)
            u2 *= np.float32(_TWO_PI)
            sin, cos = _sincos256(u2)
        cos *= radius
        sin *= radius
        o = out[i:i + rows]
        o[:, :8] = _fma32(cos, std, mean).reshape(-1, 8)
        o[:, 8:] = _fma32(sin, std, mean).reshape(-1, 8)
    return out


def _box_muller16_f64(d: np.ndarray, mean, std) -> np.ndarray:
    u1 = 1.0 - d[:, :8]
    u2 = d[:, 8:]
    radius = np.sqrt(-2.0 * _map(math.log, u1))
    theta = _TWO_PI * u2
    out = np.empty_like(d)
    out[:, :8] = _fma64(radius * np.cos(theta), std, mean)
    out[:, 8:] = _fma64(radius * np.sin(theta), std, mean)
    return out


def _normal_fill(g: Generator, n: int, mean, std, dtype, out=None) -> np.ndarray:
    """``normal_fill``: n uniforms, Box-Muller on each block of 16, and when n % 16 != 0 the last
    16 values recomputed from 16 fresh uniforms (float16 draws block by block instead). Float
    and double fill ``out`` in place when it is given, as torch fills the tensor's memory."""
    dtype = np.dtype(dtype)
    f64 = dtype == np.float64
    draw = _uniform01_f64 if f64 else _uniform01_f32
    fill16 = _box_muller16_f64 if f64 else _box_muller16_f32
    if not f64:
        mean, std = np.float32(mean), np.float32(std)
    full = n // 16 * 16
    if dtype in (np.float32, np.float64):
        data = draw(g, n, out)
    else:
        data = np.empty(n, np.float32)
        draw(g, full, data[:full])
    _fill16(data[:full], mean, std, fill16)
    if n % 16:
        tail = draw(g, 16)
        _fill16(tail, mean, std, fill16)
        data[n - 16:] = tail
    return _into(data.astype(dtype, copy=False), out)


def _fill16(d: np.ndarray, mean, std, numpy_fill16) -> None:
    """Box-Muller on the contiguous rows of 16 uniforms in ``d``, in place: the compiled kernel
    (torch's own operations) when it is there, else ``numpy_fill16``'s emulation."""
    k = _native.kernel()
    if k is not None:
        avx2 = d.dtype == np.float32 and _cpu_capability() != "default"
        if k.AVX2 or not avx2:
            k.fill16(d, float(mean), float(std), avx2)
            return
    d[...] = numpy_fill16(d.reshape(-1, 16), mean, std).reshape(d.shape)


def _normal_serial(g: Generator, n: int, mean: float, std: float) -> np.ndarray:
    """n calls of ``normal_distribution<double>``: Box-Muller on two 53-bit uniforms, the sine
    kept in the generator's cache for the next call (doubles; the caller casts)."""
    if n <= 64:
        return _normal_serial_small(g, n, mean, std)
    out = np.empty(n, np.float64)
    i = 0
    if n and g._next_double is not None:
        out[0] = g._next_double
        g._next_double = None
        i = 1
    rem = n - i
    if rem > 0:
        pairs = (rem + 1) // 2
        u = _uniform01_f64(g, 2 * pairs)
        r = np.sqrt(-2.0 * _map(math.log1p, -u[1::2]))
        theta = _TWO_PI * u[0::2]
        seq = np.empty(2 * pairs)
        seq[0::2] = r * np.cos(theta)
        seq[1::2] = r * np.sin(theta)
        out[i:] = seq[:rem]
        if rem % 2:
            g._next_double = float(seq[-1])
    return _mul_add(out, std, mean, np.float64)


def _normal_serial_small(g: Generator, n: int, mean: float, std: float) -> np.ndarray:
    """``_normal_serial`` with Python floats (the C library's log1p, cos and sin), for the few
    elements where numpy's per-call overhead would dominate."""
    vals = []
    if n and g._next_double is not None:
        vals.append(g._next_double)
        g._next_double = None
    rem = n - len(vals)
    if rem > 0:
        raw = g._u32(4 * ((rem + 1) // 2)).tolist()
        log1p, sqrt, cos, sin = math.log1p, math.sqrt, math.cos, math.sin
        for k in range(0, len(raw), 4):
            u1 = (((raw[k] << 32) | raw[k + 1]) & 0x1FFFFFFFFFFFFF) * 2.0 ** -53
            u2 = (((raw[k + 2] << 32) | raw[k + 3]) & 0x1FFFFFFFFFFFFF) * 2.0 ** -53
            r = sqrt(-2.0 * log1p(-u2))
            theta = _TWO_PI * u1
            vals.append(r * cos(theta))
            vals.append(r * sin(theta))
        if rem % 2:
            g._next_double = vals.pop()
    return _mul_add(np.array(vals, np.float64), std, mean, np.float64)


def normal(g: Generator, n: int, mean: float, std: float, dtype, contiguous=True,
           out=None) -> np.ndarray:
    """``normal_kernel``: the vectorised fill for contiguous tensors of 16 or more elements,
    otherwise one ``normal_distribution<double>`` per element. ``out``: a flat C-contiguous
    array of ``dtype`` to fill (and return) instead of a new one."""
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        raise NotImplementedError(f'"normal_kernel_cpu" not implemented for '
                                  f"'{_dt.from_numpy_dtype(dtype).name.capitalize()}'")
    if n >= 16 and contiguous:
        return _normal_fill(g, n, mean, std, dtype, out)
    return _into(_scalar_cast(_normal_serial(g, n, mean, std), dtype), out)


def _scalar_cast(v: np.ndarray, dtype) -> np.ndarray:
    """A kernel's double results as ``static_cast<scalar_t>``: c10::Half is built from a float,
    so a double becomes a float first (two roundings, rarely the same as one)."""
    dtype = np.dtype(dtype)
    if dtype.itemsize < 4:
        v = v.astype(np.float32)
    return v.astype(dtype, copy=False)


def _fmt(x) -> str:
    return repr(float(x)) if float(x) != int(x) else f"{float(x):g}"


def random_from_to(g: Generator, n: int, low: int, high: int, dtype) -> np.ndarray:
    """``random_from_to_kernel``: ``(v % range) + low`` with v from random() when the range is
    below 2**28, else from random64()."""
    rng_ = int(high) - int(low)
    v = g._u64(n) if rng_ >= (1 << 28) else g._u32(n)
    out = (v % np.uint64(rng_)) + np.uint64(int(low) & _U64)
    return _cast_int64(out.view(np.int64), dtype)


def _cast_int64(v: np.ndarray, dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return v != 0
    return v.astype(dtype)


def random_full(g: Generator, n: int, dtype) -> np.ndarray:
    """``random_()``: [0, 2**mantissa] for floats, [0, max] for integers, v & 1 for bool."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return (g._u32(n) & np.uint32(1)) != 0
    if dtype == np.float64:
        return (g._u64(n) % np.uint64((1 << 53) + 1)).astype(np.float64)
    if dtype == np.float16:
        return (g._u32(n) % np.uint64((1 << 11) + 1)).astype(np.float16)
    if dtype == np.float32:
        return (g._u32(n) % np.uint64((1 << 24) + 1)).astype(np.float32)
    if dtype == np.int64:
        return (g._u64(n) % np.uint64(1 << 63)).astype(np.int64)
    top = int(np.iinfo(dtype).max) + 1
    return (g._u32(n) % np.uint64(top)).astype(dtype)


def random_full_64(g: Generator, n: int, dtype) -> np.ndarray:
    """``random_(from=int64 min, to=None)``: random64() as int64."""
    return g._u64(n).view(np.int64).astype(dtype)


def bernoulli_scalar(g: Generator, n: int, p: float) -> np.ndarray:
    """``bernoulli_(p)``: a 53-bit uniform per element, ``u < p``."""
    return _uniform01_f64(g, n) < p


def bernoulli_tensor(g: Generator, p: np.ndarray) -> np.ndarray:
    """``bernoulli_(p_tensor)``: a double p draws a 53-bit uniform, any other a 24-bit float."""
    flat = p.reshape(-1)
    if p.dtype == np.float64:
        return _uniform01_f64(g, flat.size) < flat
    return _uniform01_f32(g, flat.size) < flat.astype(np.float32)


def exponential(g: Generator, n: int, lambd: float) -> np.ndarray:
    """``exponential_distribution<double>``: ``-1 / lambda * log1p(-u)``, u with 53 bits."""
    u = _uniform01_f64(g, n)
    return (-1.0 / lambd) * _map(math.log1p, -u)


_THIRD_F = float(np.float32(1.0) / np.float32(3.0))  # the kernel's ``1.0f / 3.0f``
_C0331 = float(np.float32(0.0331))


def _gamma_one(g: Generator, alpha, ftype) -> float:
    """ATen's ``sample_gamma`` (Marsaglia and Tsang) for one ``alpha`` of type ``ftype``: the
    float literals and ``scalar_t`` steps kept, the rest in double; uniforms and normals are
    ``uniform_real_distribution<double>`` and ``normal_distribution<double>`` (cached sine
    included). A rejection loop: each element draws a variable count, so it runs per element."""
    alpha = ftype(alpha)
    scale = 1.0
    if alpha < 1:
        if alpha == 0:
            return 0.0
        u = float(_uniform01_f64(g, 1)[0])
        scale *= (1 - u) ** float(ftype(1) / alpha)
        alpha = alpha + ftype(1)
    d = float(alpha - ftype(_THIRD_F))
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        while True:
            x = float(_normal_serial(g, 1, 0.0, 1.0)[0])
            y = 1.0 + c * x
            if y > 0:
                break
        v = y * y * y
        u = 1 - float(_uniform01_f64(g, 1)[0])
        xx = x * x
        if u < 1.0 - _C0331 * xx * xx:
            return scale * d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def standard_gamma(g: Generator, alpha: np.ndarray) -> np.ndarray:
    """``torch._standard_gamma`` (``_s_gamma_cpu``): one gamma draw per element in C order, at
    least the dtype's smallest normal number."""
    ftype = alpha.dtype.type
    flat = [_gamma_one(g, a, ftype) for a in alpha.reshape(-1).tolist()]
    out = np.array(flat, np.float64).astype(alpha.dtype).reshape(alpha.shape)
    return np.maximum(out, np.finfo(alpha.dtype).tiny)


def dirichlet(g: Generator, alpha: np.ndarray) -> np.ndarray:
    """``torch._sample_dirichlet`` (``_s_dirichlet_cpu``): gammas of the concentrations as doubles,
    divided by their sum over the last dim, kept inside (0, 1)."""
    gam = [_gamma_one(g, a, np.float64) for a in alpha.reshape(-1).tolist()]
    gam = np.maximum(np.array(gam, np.float64).reshape(alpha.shape), np.finfo(np.float64).tiny)
    out = (gam / gam.sum(-1, keepdims=True)).astype(alpha.dtype)
    top = np.nextafter(alpha.dtype.type(1), alpha.dtype.type(0))
    return np.minimum(top, np.maximum(np.finfo(alpha.dtype).tiny, out))


def _swap_front(z: np.ndarray) -> np.ndarray:
    """The permutation left by the swaps ``r[i], r[z[i]] = r[z[i]], r[i]`` (i = 0, 1, ...; z[i] >=
    i) on ``arange(len(z) + 1)``, without a loop over the swaps. Position i is final after step i,
    and holds what position z[i] held then: what the previous step aimed at z[i] left there (the
    value its own position held when it ran), else z[i] itself. Those values follow chains of
    earlier steps, resolved by pointer doubling."""
    n = z.size + 1
    zz = np.append(z, n - 1)  # the last position, as a swap with itself
    steps = np.arange(n)
    # steps grouped by target, in step order (unique keys: numpy's fast unstable sort will do)
    order = np.argsort(zz * n + steps)
    tz = zz[order]
    same = tz[1:] == tz[:-1]
    prev = np.full(n, -1, np.int64)  # the previous step aimed at the same position
    prev[order[1:][same]] = order[:-1][same]
    ends = np.append(~same, True)
    last = np.full(n, -1, np.int64)  # the last step aimed at each position
    last[tz[ends]] = order[ends]
    # held[t]: the value at position t when step t starts = held[the last earlier step aimed at t]
    # (step t itself excluded), else t
    before = np.where(zz == steps, prev, last)
    held = np.where(before >= 0, before, steps)
    while True:
        nxt = held[held]
        if np.array_equal(nxt, held):
            break
        held = nxt
    return np.where(prev >= 0, held[np.maximum(prev, 0)], zz)


def randperm(g: Generator, n: int) -> np.ndarray:
    """``randperm_cpu``: Fisher-Yates from the front with ``random() % (n - i)``; from
    2**32 / 20 on, the inside-out variant with ``random64() % (i + 1)``."""
    if n < 0xFFFFFFFF // 20:
        if n < 2:
            return np.arange(n, dtype=np.int64)
        z = (g._u32(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)).astype(np.int64)
        z += np.arange(n - 1, dtype=np.int64)
        return _swap_front(z)
    z = (g._u64(n) % np.arange(1, n + 1, dtype=np.uint64)).astype(np.int64).tolist()
    r = [0] * n
    for i, j in enumerate(z):
        r[i] = r[j]
        r[j] = i
    return np.array(r, dtype=np.int64)


# -- filling a tensor in place --------------------------------------------------------------------

def _iteration_order(arr: np.ndarray):
    """TensorIterator's order of ``arr``'s axes (memory order: the smallest stride innermost),
    or None for C order."""
    if arr.ndim < 2 or arr.flags.c_contiguous:
        return None
    return sorted(range(arr.ndim), key=lambda d: -abs(arr.strides[d]) if arr.shape[d] > 1 else 0)


def _iteration_view(arr: np.ndarray) -> np.ndarray:
    """``arr`` with its axes in TensorIterator's order, so that values written in C order land
    in the order PyTorch generates them."""
    order = _iteration_order(arr)
    return arr if order is None else arr.transpose(order)


def _write(t, values: np.ndarray):
    view = _iteration_view(t._data)
    view[...] = values.reshape(view.shape)
    t._version.value += 1
    return t


def _fill_in_place(t, draw):
    """``draw(out)`` into ``t``: ``out`` is t's own memory, flat, when t is C-contiguous (the
    kernel fills it there, as torch's does, with no second array), else None (and the values
    drawn are written in TensorIterator's order)."""
    data = t._data
    out = data.reshape(-1) if data.flags.c_contiguous and data.flags.writeable else None
    values = draw(out)
    if values is not out:
        return _write(t, values)
    t._version.value += 1
    return t


def _check(t) -> None:
    """PyTorch's refusals of an in-place write (a leaf that requires grad, ...)."""
    try:
        from .ops.api import _check_inplace
    except ImportError:  # pragma: no cover - the op layer renamed it: the leaf check at least
        from .autograd.grad_mode import is_grad_enabled

        if is_grad_enabled() and t.requires_grad and t.grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                               "operation.") from None
        return
    _check_inplace(t)


def _contiguous(t) -> bool:
    return bool(t._data.flags.c_contiguous)


def uniform_(self, from_=0.0, to=1.0, *, generator=None, **kw):
    from_ = kw.pop("from", from_)
    if kw:
        raise TypeError(f"uniform_() got an unexpected keyword argument '{next(iter(kw))}'")
    _check(self)
    if self._data.dtype.kind != "f":
        raise NotImplementedError(f"\"check_uniform_bounds\" not implemented for '{_dtn(self)}'")
    if not from_ <= to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={_fmt(from_)} > to={_fmt(to)}")
    g, n, dt = _gen(generator), self._data.size, self._data.dtype
    return _fill_in_place(self, lambda out: uniform(g, n, from_, to, dt, out))


def _dtn(t) -> str:
    return _dt.from_numpy_dtype(t._data.dtype).name.capitalize()


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    _check(self)
    g, n, dt, contiguous = _gen(generator), self._data.size, self._data.dtype, _contiguous(self)
    return _fill_in_place(self, lambda out: normal(g, n, mean, std, dt, contiguous, out))


_NO_TO = object()


def random_(self, from_=None, to=_NO_TO, *, generator=None, **kw):
    """``random_()``; ``random_(to)``: [0, to); ``random_(from, to)``: [from, to);
    ``random_(from, None)``: [from, the dtype's max] (2**digits for floats), the whole 64-bit
    range (random64 as an int64) when ``from`` is int64's minimum."""
    if "from" in kw:
        from_ = kw.pop("from")
        to = kw.pop("to", to)
    if kw:
        raise TypeError(f"random_() got an unexpected keyword argument '{next(iter(kw))}'")
    _check(self)
    g, n, dt = _gen(generator), self._data.size, self._data.dtype
    if from_ is None and to is _NO_TO:
        return _write(self, random_full(g, n, dt))
    if to is _NO_TO:
        from_, to = 0, from_
    elif to is None:
        from_ = int(from_)
        if from_ == -(1 << 63):
            if dt not in (np.int64, np.float64, np.float32):
                raise RuntimeError("random_full_64_bits_range_kernel_cpu handles only int64, "
                                   "double, float and bfloat16")
            return _write(self, random_full_64(g, n, dt))
        if dt.kind == "f":
            to = (1 << 53 if dt == np.float64 else 1 << 24 if dt == np.float32 else 1 << 11) + 1
        else:
            to = (1 if dt == np.bool_ else int(np.iinfo(dt).max)) + 1
    from_, to = int(from_), int(to)
    if from_ >= to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                           f"from={from_} >= to={to}")
    return _write(self, random_from_to(g, n, from_, to, dt))


def exponential_(self, lambd=1.0, *, generator=None):
    _check(self)
    if self._data.dtype.kind != "f":
        raise RuntimeError("Exponential distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified {_dtn(self)}")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_fmt(lambd)}")
    values = exponential(_gen(generator), self._data.size, lambd)
    return _write(self, _scalar_cast(values, self._data.dtype))


def bernoulli_(self, p=0.5, *, generator=None):
    _check(self)
    g = _gen(generator)
    if hasattr(p, "_data"):
        # p is read in the order the output is written (the output leads TensorIterator)
        pa = np.broadcast_to(p._data, self._data.shape)
        order = _iteration_order(self._data)
        pa = np.ascontiguousarray(pa if order is None else pa.transpose(order))
        if pa.size and (pa.min() < 0 or pa.max() > 1):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
        return _write(self, bernoulli_tensor(g, pa))
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_fmt(p)}")
    return _write(self, bernoulli_scalar(g, self._data.size, p))


def bernoulli(input, p=None, *, generator=None, out=None):
    """``torch.bernoulli(input)``: each element 1 with probability ``input[i]``; with a float p,
    ``empty_like(input).bernoulli_(p)``."""
    from .tensor import Tensor

    t = Tensor._wrap(np.empty(input._data.shape, input._data.dtype))  # contiguous, as ATen's
    with _no_grad():
        bernoulli_(t, input if p is None else p, generator=generator)
    return t


def _no_grad():
    from .autograd.grad_mode import no_grad

    return no_grad()


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """``torch.multinomial`` (CPU): without replacement (or one sample) the exponential trick
    ``topk(p / Exp(1))``; with replacement a binary search of a 53-bit uniform in the
    normalised float cumulative sums, sample by sample, row by row."""
    from .tensor import Tensor

    g = _gen(generator)
    p = input._data
    if p.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if p.dtype.kind != "f":
        raise RuntimeError("multinomial only supports floating-point dtypes for input, got: "
                           + _dtn(input))
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    n_cat = p.shape[-1]
    if not replacement and num_samples > n_cat:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    rows = p.reshape(-1, n_cat)
    if rows.size and (not np.isfinite(rows).all() or (rows < 0).any()):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if (rows.sum(axis=1) == 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if not replacement or num_samples == 1:
        q = _scalar_cast(exponential(g, rows.size, 1.0), p.dtype).reshape(rows.shape)
        with np.errstate(all="ignore"):
            v = rows / q
        if num_samples == 1:
            idx = np.argmax(v, axis=1)[:, None]
        else:
            idx = np.argsort(-v, axis=1, kind="stable")[:, :num_samples]
    else:
        idx = np.empty((rows.shape[0], num_samples), np.int64)
        for i, row in enumerate(rows):
            cum = np.cumsum(row, dtype=row.dtype)
            total = cum[-1]
            if total > 0:
                cum = cum / total
            cum[-1] = 1
            u = _uniform01_f64(g, num_samples)
            idx[i] = np.searchsorted(cum.astype(np.float64), u, side="left")
    out = idx.astype(np.int64).reshape(p.shape[:-1] + (num_samples,))
    return Tensor._wrap(out)


def _install_methods() -> None:
    from .tensor import Tensor

    Tensor.uniform_ = uniform_
    Tensor.normal_ = normal_
    Tensor.random_ = random_
    Tensor.exponential_ = exponential_
    Tensor.bernoulli_ = bernoulli_
    Tensor.bernoulli = lambda self, p=None, *, generator=None: bernoulli(
        self, p, generator=generator)
    Tensor.multinomial = lambda self, num_samples, replacement=False, *, generator=None: (
        multinomial(self, num_samples, replacement, generator=generator))


_install_methods()
