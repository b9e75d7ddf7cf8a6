"""PyTorch's CPU float sum in its own order of additions, in numpy.

ATen sums float32/float64 with ``cascade_sum`` (``aten/src/ATen/native/cpu/SumKernel.cpp``):
TensorIterator orders and merges the dimensions (reduced ones first, then by stride), and each
2-D block of that iteration is summed by one of four loops, all built from ``multi_row_sum`` (a
4-level cascade of sequential sums over chunks of 2**max(4, ceil(log2 n) / 4) rows) and
``row_sum`` (the same over 4 interleaved partial sums, the ILP factor). The vectorised loops use
32-byte ``Vectorized`` lanes (8 floats, 4 doubles) on AVX2 and AVX512 builds alike (measured:
torch 2.13's AVX512 build sums in 8 float lanes). numpy's pairwise sum adds in another order, so
its float sums differ from torch's in the last bits; these functions add in torch's order.

Every sequential sum here is an ``np.add.accumulate`` (strictly left to right) or explicit adds,
over all rows and lanes at once, so the cost is a few dozen numpy calls per reduction, whatever
its size. Above ``GRAIN_SIZE`` elements torch splits the work across its intra-op threads
(``parallel_reduce``): a full reduction sums one chunk per thread and then the per-thread
results, so the result depends on the thread count, read as torch reads its default
(``OMP_NUM_THREADS``, ``MKL_NUM_THREADS``, else the physical cores).
"""

from __future__ import annotations

import math
import os

import numpy as np

from .. import _native

LANE_BYTES = 32  # one Vectorized<T> in the sum kernel
GRAIN_SIZE = 32768  # at::internal::GRAIN_SIZE
_LEVELS = 4  # multi_row_sum's num_levels
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_F32, _F64 = _FLOATS  # native-order dtypes are singletons: ``is`` before ``in``'s comparisons

_threads = None


def intraop_threads() -> int:
    """torch's default ``get_num_threads()``: the number of physical cores (as cpuinfo counts
    them; else the logical CPUs), or OMP_NUM_THREADS / MKL_NUM_THREADS when lower (measured:
    torch 2.13 on 2 cores reports 2 threads under OMP_NUM_THREADS=3, 1 under 1); or what the
    script set with ``torch.set_num_threads`` (engine/threads.py keeps it)."""
    from ..threads import SETTINGS

    chosen = SETTINGS["intra"]
    if chosen:
        return chosen
    cores = _cores()
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        v = os.environ.get(var, "")
        if v.isdigit() and int(v) > 0:
            return min(int(v), cores)
    return cores


def _cores() -> int:
    global _threads
    if _threads is None:
        cores = set()
        try:
            for name in os.listdir("/sys/devices/system/cpu"):
                top = f"/sys/devices/system/cpu/{name}/topology"
                if name[3:].isdigit() and os.path.isdir(top):
                    with open(f"{top}/core_id") as f, open(f"{top}/physical_package_id") as g:
                        cores.add((g.read().strip(), f.read().strip()))
        except OSError:
            cores = set()
        _threads = len(cores) or os.cpu_count() or 1
    return _threads


# -- the kernels' loops, each over axis 0 of an array, vectorised over every other axis -----------

def _seq(a: np.ndarray) -> np.ndarray:
    """``((a[0] + a[1]) + a[2]) + ...``: a strictly sequential sum over axis 0."""
    n = a.shape[0]
    if n <= 4:
        if n == 0:
            return np.zeros(a.shape[1:], a.dtype)
        s = a[0]
        for k in range(1, n):
            s = s + a[k]
        return s
    return np.add.accumulate(a, axis=0)[-1]


def _groups(a: np.ndarray, size: int) -> np.ndarray:
    """Sequential sums of consecutive groups of ``size`` rows (the full groups only)."""
    n = a.shape[0] // size
    return _seq(a[:n * size].reshape((n, size) + a.shape[1:]).swapaxes(0, 1))


def _cascade(rows: np.ndarray) -> np.ndarray:
    """``multi_row_sum`` over axis 0: sequential sums of chunks of 2**p rows, those summed in
    chunks of 2**p at the next level, the top level keeping all; then the leftover rows, plus each
    level's unfinished sum, bottom up."""
    size = rows.shape[0]
    step = 1 << max(4, (size - 1).bit_length() // _LEVELS)
    if size < step:
        return _seq(rows)
    full = size // step * step
    total = _seq(rows[full:])
    level = rows
    for depth in range(1, _LEVELS):
        level = _groups(level, step)  # the finished sums of level depth - 1
        if depth == _LEVELS - 1 or level.shape[0] < step:
            return total + _seq(level)  # the top level, or the last with anything in it
        done = level.shape[0] // step * step
        total = total + _seq(level[done:])  # this level's unfinished sum
    return total  # not reached


def _row_sum(x: np.ndarray) -> np.ndarray:
    """``row_sum`` over axis 0: the rows as (-1, 4) (4 partial cascades), the rows left over
    added to the first partial, then the other partials."""
    size = x.shape[0]
    n4 = size // 4
    if not n4:
        return _seq(x)
    parts = _cascade(x[:4 * n4].reshape((n4, 4) + x.shape[1:]))
    p = parts[0]
    for k in range(4 * n4, size):
        p = p + x[k]
    return ((p + parts[1]) + parts[2]) + parts[3]


def _inner(x: np.ndarray, lanes: int) -> np.ndarray:
    """``vectorized_inner_sum`` over axis 0 (contiguous): ``row_sum`` of whole vectors, lane by
    lane; then the elements after the last vector, then the lanes, added to zero in order."""
    n = x.shape[0]
    nv = n // lanes
    vec = _row_sum(x[:nv * lanes].reshape((nv, lanes) + x.shape[1:]))
    return _seq(np.concatenate((x[nv * lanes:], vec), axis=0))


def _column_sums(x: np.ndarray, s0: int, s1: int, itemsize: int) -> np.ndarray:
    """One ``cascade_sum`` loop call on x (size0, size1, ...): the sum over axis 0 of each column,
    by the loop torch picks from the byte strides s0, s1 of the two axes."""
    lanes = LANE_BYTES // itemsize
    d0, d1 = x.shape[0], x.shape[1]
    if s0 == itemsize and d0 >= lanes:
        return _inner(x, lanes)
    if s1 == itemsize and d1 >= lanes:  # vectorized_outer_sum: 4 vectors of columns at a time
        grouped = d1 // (4 * lanes) * 4 * lanes
    elif s0 < s1:  # scalar_inner_sum
        grouped = 0
    else:  # scalar_outer_sum: 4 columns at a time
        grouped = d1 // 4 * 4
    if grouped == d1:
        return _cascade(x)
    if not grouped:
        return _row_sum(x)
    return np.concatenate((_cascade(x[:, :grouped]), _row_sum(x[:, grouped:])), axis=0)


# -- TensorIterator: the order of the dimensions, their merging, the loop calls -------------------

def _iteration(shape, in_strides, out_strides, reduced):
    """TensorIterator's ``reorder_dimensions`` then ``coalesce_dimensions`` for (output, input):
    the dimensions fastest first, reduced ones in front; returns (shape, in, out, reduced)."""
    nd = len(shape)
    ops = (out_strides, in_strides)

    def should_swap(d0, d1):
        for k, st in enumerate(ops):
            a, b = st[d0], st[d1]
            if k == 0 and (a == 0) != (b == 0):
                return 1 if b == 0 else -1
            if a == 0 or b == 0:
                continue
            if a != b:
                return -1 if a < b else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(range(nd - 1, -1, -1))
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    sh = [shape[p] for p in perm]
    st = [[s[p] for p in perm] for s in (in_strides, out_strides)]
    red = [reduced[p] for p in perm]
    if nd > 1:
        prev = 0
        for d in range(1, nd):
            if sh[prev] == 1 or sh[d] == 1 or all(sh[prev] * s[prev] == s[d] for s in st):
                if sh[prev] == 1:
                    for s in st:
                        s[prev] = s[d]
                    red[prev] = red[d]
                sh[prev] *= sh[d]
            else:
                prev += 1
                if prev != d:
                    for s in st:
                        s[prev] = s[d]
                    sh[prev] = sh[d]
                    red[prev] = red[d]
        del sh[prev + 1:]
        del red[prev + 1:]
        st = [s[:prev + 1] for s in st]
    return sh, st[0], st[1], red


def _serial(it: np.ndarray, nred: int, s_in, itemsize: int) -> np.ndarray:
    """``serial_for_each`` over the whole iteration view ``it`` (fastest axis first, the first
    ``nred`` reduced): the sums in the iteration order of the kept axes."""
    if nred == 0:
        return it + it.dtype.type(0)
    if it.ndim == 1:  # a loop call of (size, 1), the second stride 0
        return _column_sums(it[:, None], s_in[0], 0, itemsize)[0]
    sums = _column_sums(it, s_in[0], s_in[1], itemsize)  # (d1, rest...)
    if nred == 1:
        return sums
    # every loop call adds its columns' sums into the same output, columns then outer axes in
    # order (axis 2 fastest): one sequential sum over all of them
    axes = tuple(range(nred - 2, -1, -1)) + tuple(range(nred - 1, sums.ndim))
    return _seq(sums.transpose(axes).reshape((-1,) + sums.shape[nred - 1:]))


def _chunks(n: int, grain: int, threads: int):
    """``at::parallel_for``'s ranges (OpenMP): one chunk per thread, divup(n, threads) long."""
    if n <= grain or threads <= 1:
        return [(0, n)]
    t = min(threads, -(-n // grain))
    size = -(-n // t)
    return [(b, min(n, b + size)) for b in range(0, n, size)]


def _range_sum(it: np.ndarray, s_in, itemsize: int, begin: int, end: int) -> np.ndarray:
    """One thread's part of a full reduction: ``serial_for_each`` over the linear range, in
    DimCounter's 2-D steps, every step's sums added to the thread's zero in order."""
    if it.ndim == 1:
        return _serial(it[begin:end], 1, (s_in[0], 0), itemsize)
    shape = it.shape
    vals = [int(v) for v in np.unravel_index(begin, shape[::-1])[::-1]]
    offset, parts = begin, []
    while offset < end:
        step0 = min(shape[0] - vals[0], end - offset)
        step1 = 1
        if step0 == shape[0]:
            step1 = min(shape[1] - vals[1], (end - offset) // shape[0])
        block = it[(slice(vals[0], vals[0] + step0), slice(vals[1], vals[1] + step1))
                   + tuple(vals[2:])]
        parts.append(_column_sums(block, s_in[0], s_in[1], itemsize))
        offset += step0 * step1
        if offset < end:
            vals = [int(v) for v in np.unravel_index(offset, shape[::-1])[::-1]]
    return _seq(np.concatenate(parts))


def _reduce(x: np.ndarray, axes) -> np.ndarray | None:
    """torch's float sum of ``x`` over ``axes`` (a set of ints): an array of x's dtype shaped as
    keepdim's result; None where the strides are ones the emulation does not model."""
    itemsize = x.itemsize
    if x.ndim == 0:
        return x + x.dtype.type(0)
    if any(s < 0 or s % itemsize for s in x.strides):
        return None
    shape = x.shape
    reduced = [d in axes for d in range(x.ndim)]
    out_shape = [1 if r else n for n, r in zip(shape, reduced)]
    out_strides, acc = [0] * x.ndim, 1
    for d in range(x.ndim - 1, -1, -1):
        out_strides[d] = 0 if reduced[d] else acc
        acc *= out_shape[d]
    sh, s_in, s_out, red = _iteration(list(shape), [s // itemsize for s in x.strides],
                                      out_strides, reduced)
    nred = sum(red)
    if red[:nred] != [True] * nred:
        return None
    it = np.lib.stride_tricks.as_strided(x, sh, [s * itemsize for s in s_in], writeable=False)
    s_bytes = [s * itemsize for s in s_in]
    threads = intraop_threads()
    numel = x.size
    zero = x.dtype.type(0)
    if numel < GRAIN_SIZE or threads == 1 or nred == 0:
        vals = _serial(it, nred, s_bytes, itemsize)
    elif nred == len(sh):  # two_pass_reduction: a partial sum per thread, then their sum
        buffer = np.zeros(threads, x.dtype)
        for t, (b, e) in enumerate(_chunks(numel, GRAIN_SIZE, threads)):
            buffer[t] = _range_sum(it, s_bytes, itemsize, b, e) + zero
        vals = _serial(buffer, 1, (itemsize, 0), itemsize)
    else:  # parallel_dim_reduction: the outermost kept axis long enough, split among threads
        dim = len(sh) - 1
        best = dim
        while dim >= 0 and not red[dim]:
            if sh[dim] >= threads:
                best = dim
                break
            if sh[dim] > sh[best]:
                best = dim
            dim -= 1
        cols = sh[best]
        pieces = []
        for b, e in _chunks(cols, 1, threads):
            if s_bytes[best] == itemsize:  # rounded to 128-byte columns
                m = 128 // itemsize
                b -= b % m
                if e != cols:
                    e -= e % m
            if b < e:
                pieces.append((b, e))
        out = np.zeros(sh[nred:], x.dtype)
        for b, e in pieces:
            sub = it[(slice(None),) * best + (slice(b, e),)]
            part = _serial(sub, nred, s_bytes, itemsize)
            out[(slice(None),) * (best - nred) + (slice(b, e),)] = part
        vals = out
    vals = np.asarray(vals) + zero
    # the kept axes in iteration order -> the keepdim result's memory (its strides s_out)
    result = np.zeros(out_shape, x.dtype)
    if vals.ndim:
        kept_strides = [s * itemsize for s in s_out[nred:]]
        view = np.lib.stride_tricks.as_strided(result, vals.shape, kept_strides)
        view[...] = vals
    else:
        result.reshape(-1)[0] = vals
    return result


# -- the op rows' entry points ---------------------------------------------------------------------

def _axes(dim, ndim):
    """The reduced axes; ``dim=[]`` reduces all of them, as in torch."""
    if dim is None or (isinstance(dim, (tuple, list)) and not dim):
        return set(range(ndim))
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    return {d % ndim for d in dims} if ndim else set()


def _flat(v: np.ndarray) -> np.ndarray:
    """The sum of a contiguous 1-D array: one loop call, or one per thread and their sum."""
    if v.size < GRAIN_SIZE or (threads := intraop_threads()) == 1:
        return _loop_sum(v)
    buffer = np.zeros(threads, v.dtype)
    for t, (b, e) in enumerate(_chunks(v.size, GRAIN_SIZE, threads)):
        buffer[t] = _loop_sum(v[b:e])
    return _loop_sum(buffer)


# The compiled loop (engine/_native/sums.c), or None: read once, since a sum is too quick for an
# environment lookup per call (GRADSTEP_NATIVE=0 at start-up selects the numpy code).
_SUMS = _native.sums()


def _loop_sum(v: np.ndarray, native: bool = True):
    """One call of torch's sum loop on a contiguous non-empty 1-D array (a full sum, or one
    thread's part of one), a scalar of v's dtype: ``_inner`` (``_short`` below 64 vectors), or
    ``_row_sum`` of fewer elements than a vector. One call of the compiled kernel when it is built
    (~0.1-2 us against 6-20 us for the numpy calls below, which give the same bits and which
    ``native=False`` asks for)."""
    if native and _SUMS is not None:
        return v.dtype.type(_SUMS.loop_sum(v))
    itemsize = v.itemsize
    lanes = LANE_BYTES // itemsize
    if lanes <= v.size < 64 * lanes:
        return _short(v, lanes)
    return _column_sums(v[:, None], itemsize, 0, itemsize)[0]


def _short(v: np.ndarray, lanes: int) -> np.ndarray:
    """``_inner`` of a short contiguous 1-D array (fewer than 16 rows of 4 vectors: the cascade
    is one sequential pass), in fewer numpy calls."""
    nv = v.size // lanes
    n4 = nv // 4
    if n4:
        rows = v[:4 * n4 * lanes].reshape(n4, 4 * lanes)
        parts = (np.add.accumulate(rows, axis=0)[-1] if n4 > 1 else rows[0]).reshape(4, lanes)
        if 4 * n4 < nv:  # the vectors left over go to the first partial, before the others
            extra = v[4 * n4 * lanes:nv * lanes].reshape(-1, lanes)
            parts = np.concatenate((parts[:1], extra, parts[1:]))
        p = np.add.accumulate(parts, axis=0)[-1]
    else:
        p = _seq(v[:nv * lanes].reshape(nv, lanes))
    if nv * lanes < v.size:
        p = np.concatenate((v[nv * lanes:], p))
    return np.add.accumulate(p)[-1]


def _full(x: np.ndarray, mean: bool) -> np.ndarray:
    """torch's sum (or mean) of all of a C-contiguous non-empty float32/float64 array, a 0-d
    array: the loop sums added to torch's zero accumulator (-0.0 sums to 0.0), divided by the
    count in x's dtype for the mean. With the compiled loop, in Python floats: a float32 sum is
    exact as a double, and so is adding zero; the double quotient of two floats rounds to the
    float quotient (53 bits >= 2 * 24 + 2: no double rounding), the count being exact below the
    thread split. numpy's scalars cost more than the short sum itself."""
    n = x.size
    if _SUMS is not None and n < GRAIN_SIZE:
        s = _SUMS.loop_sum(x) + 0.0  # (a C-contiguous buffer reads as its flat elements)
        return np.array(s / n if mean else s, x.dtype)
    t = x.dtype.type
    s = _flat(x.reshape(-1)) + t(0)
    return np.asarray(s / t(n) if mean else s)


def _contiguous(x: np.ndarray, axes) -> np.ndarray | None:
    """The common cases of a C-contiguous x, whose dimensions TensorIterator merges into one
    loop call: all of them, the trailing ones, or the leading ones reduced (their sums do not
    depend on how torch splits the kept ones among threads). None for the others."""
    nd = x.ndim
    k = nd - len(axes)
    zero = x.dtype.type(0)
    if k == 0:
        return _flat(x.reshape(-1)) + zero
    itemsize = x.itemsize
    if axes == set(range(k, nd)):
        m = math.prod(x.shape[:k])
        n = x.size // m
        rows = x.reshape(m, n).T
        return _column_sums(rows, itemsize, n * itemsize, itemsize) + zero
    if axes == set(range(nd - k)):
        n = math.prod(x.shape[nd - k:])
        m = x.size // n
        return _column_sums(x.reshape(m, n), n * itemsize, itemsize, itemsize) + zero
    return None


def torch_sum(x, dim=None, keepdim=False, dtype=None):
    """``torch.sum(x, dim, keepdim, dtype=dtype)`` on a numpy array, in torch's order for float32
    and float64 (the input cast to ``dtype`` first, as torch does); numpy's sum otherwise."""
    if dim is None and x.__class__ is np.ndarray and x.flags.c_contiguous and x.size:
        dt = x.dtype
        if (dt is _F32 or dt is _F64) and (dtype is None or dt == dtype):  # the common case
            r = _full(x, False)
            return r.reshape((1,) * x.ndim) if keepdim else r
    if dtype is not None and x.dtype != dtype:
        x = np.asarray(x).astype(dtype)
    if x.__class__ is not np.ndarray or x.dtype not in _FLOATS or not x.size:
        return np.sum(x, axis=None if dim is None else tuple(_axes(dim, np.ndim(x))) or None,
                      keepdims=keepdim, dtype=dtype)
    axes = _axes(dim, x.ndim)
    r = _contiguous(x, axes) if x.flags.c_contiguous and x.ndim else None
    if r is None:
        r = _reduce(x, axes)
        if r is None:
            return np.sum(x, axis=tuple(axes), keepdims=keepdim)
    if keepdim:
        return r.reshape([1 if d in axes else n for d, n in enumerate(x.shape)])
    return r.reshape([n for d, n in enumerate(x.shape) if d not in axes])


def torch_mean(x, dim=None, keepdim=False, dtype=None):
    """``torch.mean``: torch's CPU mean is its sum, then a division by the count in the result's
    dtype (``sum_out(...).div_(dim_prod)``)."""
    if dim is None and x.__class__ is np.ndarray and x.flags.c_contiguous and x.size:
        dt = x.dtype
        if (dt is _F32 or dt is _F64) and (dtype is None or dt == dtype):  # the common case
            r = _full(x, True)
            return r.reshape((1,) * x.ndim) if keepdim else r
    s = np.asarray(torch_sum(x, dim, keepdim, dtype))
    count = np.size(x) if dim is None else math.prod(np.shape(x)[d] for d in _axes(dim, x.ndim))
    if s.dtype.kind != "f":
        return s
    return (s / s.dtype.type(count)).astype(s.dtype, copy=False)
