"""numpy kernels of the layer rows of ``engine/ops/table.py`` (convolution, pooling, the norms,
embedding, constant padding, packed sequences, the fused LSTM layer and flash attention):
forwards and per-input rules, vectorised.

Convolution and pooling read their windows through ``sliding_window_view`` (a strided view, no
copy); ``tensordot`` then makes the one im2col buffer BLAS multiplies. Input gradients are
scattered back with one slice-add per kernel position (a loop over the kernel, never over
pixels). 1-D convolution runs as a 2-D one over a height of 1; unbatched inputs get a batch of
one. The rules are plain numpy: ``create_graph=True`` through these nodes raises
NotImplementedError (PyTorch would record ``ConvolutionBackwardBackward0`` & co.).
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

# -- convolution -----------------------------------------------------------------------------------

def _as_2d(x, w, stride, padding, dilation):
    """Lift a 1-D convolution (N, C, L) to 2-D (N, C, 1, L); a 2-D one passes unchanged."""
    if w.ndim == 3:
        return (x[:, :, None, :], w[:, :, None, :], (1, *stride), (0, *padding),
                (1, *dilation))
    return x, w, stride, padding, dilation


def _windows(xp, kh, kw, stride, dilation):
    """(N, C, Ho, Wo, kh, kw) view of the windows of the padded input ``xp``."""
    (sh, sw), (dh, dw) = stride, dilation
    v = sliding_window_view(xp, (dh * (kh - 1) + 1, dw * (kw - 1) + 1), axis=(2, 3))
    return v[:, :, ::sh, ::sw, ::dh, ::dw]


def _pad2(x, ph, pw, value=0):
    if not (ph or pw):
        return x
    return np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=value)


def conv_forward(x, w, b, stride, padding, dilation, groups):
    unbatched = x.ndim == w.ndim - 1
    if unbatched:
        x = x[None]
    one_d = w.ndim == 3
    x, w, stride, padding, dilation = _as_2d(x, w, stride, padding, dilation)
    v = _windows(_pad2(x, *padding), w.shape[2], w.shape[3], stride, dilation)
    if groups == 1:
        out = np.tensordot(v, w, axes=([1, 4, 5], [1, 2, 3]))  # (N, Ho, Wo, O)
    else:
        cg, og = w.shape[1], w.shape[0] // groups
        out = np.concatenate([
            np.tensordot(v[:, k * cg:(k + 1) * cg], w[k * og:(k + 1) * og],
                         axes=([1, 4, 5], [1, 2, 3])) for k in range(groups)], axis=-1)
    if b is not None:
        out += b
    out = np.ascontiguousarray(out.transpose(0, 3, 1, 2))
    if one_d:
        out = out[:, :, 0]
    return out[0] if unbatched else out


def _grad_output_2d(g, x, w):
    """The output gradient as (N, O, Ho, Wo)."""
    if x.ndim == w.ndim - 1:
        g = g[None]
    return g[:, :, None, :] if w.ndim == 3 else g


def conv_grad_input(g, ans, x, w, b, stride, padding, dilation, groups):
    unbatched = x.ndim == w.ndim - 1
    shape = x.shape
    g = _grad_output_2d(g, x, w)
    xb = x[None] if unbatched else x
    x2, w2, stride, padding, dilation = _as_2d(xb, w, stride, padding, dilation)
    n, c, h, wd = x2.shape
    (ph, pw), (sh, sw), (dh, dw) = padding, stride, dilation
    kh, kw = w2.shape[2], w2.shape[3]
    ho, wo = g.shape[2], g.shape[3]
    gxp = np.zeros((n, c, h + 2 * ph, wd + 2 * pw), dtype=g.dtype)
    cg, og = w2.shape[1], w2.shape[0] // groups
    for k in range(groups):
        # (C/g, kh, kw, N, Ho, Wo): the output gradient carried back through each kernel tap
        cols = np.tensordot(w2[k * og:(k + 1) * og], g[:, k * og:(k + 1) * og], axes=([0], [1]))
        target = gxp[:, k * cg:(k + 1) * cg]
        for i in range(kh):
            rows = slice(i * dh, i * dh + sh * (ho - 1) + 1, sh)
            for j in range(kw):
                target[:, :, rows, j * dw:j * dw + sw * (wo - 1) + 1:sw] += \
                    cols[:, i, j].transpose(1, 0, 2, 3)
    gx = gxp[:, :, ph:ph + h, pw:pw + wd]
    return np.ascontiguousarray(gx).reshape(shape)


def conv_grad_weight(g, ans, x, w, b, stride, padding, dilation, groups):
    g = _grad_output_2d(g, x, w)
    xb = x[None] if x.ndim == w.ndim - 1 else x
    x2, w2, stride, padding, dilation = _as_2d(xb, w, stride, padding, dilation)
    v = _windows(_pad2(x2, *padding), w2.shape[2], w2.shape[3], stride, dilation)
    if groups == 1:
        gw = np.tensordot(g, v, axes=([0, 2, 3], [0, 2, 3]))
    else:
        cg, og = w2.shape[1], w2.shape[0] // groups
        gw = np.concatenate([
            np.tensordot(g[:, k * og:(k + 1) * og], v[:, k * cg:(k + 1) * cg],
                         axes=([0, 2, 3], [0, 2, 3])) for k in range(groups)], axis=0)
    return gw.reshape(w.shape).astype(w.dtype, copy=False)


def conv_grad_bias(g, ans, x, w, b, stride, padding, dilation, groups):
    axes = (0, *range(2, g.ndim)) if g.ndim == w.ndim else tuple(range(1, g.ndim))
    return g.sum(axis=axes)


# -- transposed convolution (ConvTranspose1d/2d) ---------------------------------------------------
# A transposed convolution is the input-gradient of the convolution whose weight it shares, so its
# three rules are the convolution's kernels with the roles swapped: its output is conv_grad_input
# of x, its input grad the convolution of g, its weight grad conv_grad_weight with x and g swapped.

def _transposed_shape(x, w, stride, padding, output_padding, dilation, groups):
    unbatched = x.ndim == w.ndim - 1
    spatial = tuple((n - 1) * s - 2 * p + d * (k - 1) + op + 1 for n, s, p, d, k, op in zip(
        x.shape[-(w.ndim - 2):], stride, padding, dilation, w.shape[2:], output_padding))
    batch = () if unbatched else (x.shape[0],)
    return (*batch, w.shape[1] * groups, *spatial)


def conv_transpose_forward(x, w, b, stride, padding, output_padding, dilation, groups):
    like = np.empty(_transposed_shape(x, w, stride, padding, output_padding, dilation, groups),
                    dtype=x.dtype)  # only its shape is read
    out = conv_grad_input(x, None, like, w, None, stride, padding, dilation, groups)
    if b is not None:
        out += b.reshape((-1,) + (1,) * (w.ndim - 2))
    return out


def _uncropped(g, x, w, stride, padding, dilation):
    """The output grad placed in the transposed convolution's whole output, before ``padding``
    was cut from both ends and ``output_padding`` added at the end: ``(n - 1) * s + d * (k - 1)
    + 1`` positions per spatial dim, zero where the cut parts were (the positions of the output
    padding that no input element reaches are dropped). The convolution of that, without
    padding, has exactly the input's size."""
    nd = w.ndim - 2
    full = tuple((n - 1) * s + d * (k - 1) + 1 for n, s, d, k in zip(
        x.shape[-nd:], stride, dilation, w.shape[2:]))
    out = np.zeros(g.shape[:-nd] + full, dtype=g.dtype)
    src, dst = [Ellipsis], [Ellipsis]
    for size, f, p in zip(g.shape[-nd:], full, padding):
        keep = min(size, f - p)
        src.append(slice(0, keep))
        dst.append(slice(p, p + keep))
    out[tuple(dst)] = g[tuple(src)]
    return out


def conv_transpose_grad_input(g, ans, x, w, b, stride, padding, output_padding, dilation,
                              groups):
    g = _uncropped(g, x, w, stride, padding, dilation)
    return conv_forward(g, w, None, stride, (0,) * len(stride), dilation, groups).astype(
        x.dtype, copy=False)


def conv_transpose_grad_weight(g, ans, x, w, b, stride, padding, output_padding, dilation,
                               groups):
    g = _uncropped(g, x, w, stride, padding, dilation)
    return conv_grad_weight(x, None, g, w, None, stride, (0,) * len(stride), dilation, groups)


def conv_transpose_grad_bias(g, ans, x, w, b, stride, padding, output_padding, dilation, groups):
    return conv_grad_bias(g, ans, x, w, b, stride, padding, dilation, groups)


# -- constant padding (F.pad) ----------------------------------------------------------------------

def _pad_widths(ndim, pad):
    """numpy's ((before, after), ...) from PyTorch's (last_before, last_after, ...)."""
    widths = [(0, 0)] * ndim
    for k in range(len(pad) // 2):
        widths[ndim - 1 - k] = (pad[2 * k], pad[2 * k + 1])
    return widths


def _pad_or_crop(x, widths, value):
    grow = [(max(a, 0), max(b, 0)) for a, b in widths]
    if any(a or b for a, b in grow):
        x = np.pad(x, grow, constant_values=np.asarray(value, x.dtype))
    crop = tuple(slice(-a if a < 0 else 0, x.shape[d] + b if b < 0 else None)
                 for d, (a, b) in enumerate(widths))
    return x[crop]


def constant_pad(x, pad, value):
    return np.ascontiguousarray(_pad_or_crop(x, _pad_widths(x.ndim, pad), value))


def constant_pad_grad(g, ans, x, pad, value):
    widths = [(-a, -b) for a, b in _pad_widths(g.ndim, pad)]
    return np.ascontiguousarray(_pad_or_crop(g, widths, 0))


# -- pooling ---------------------------------------------------------------------------------------

def pool_out_size(size, k, s, p, d, ceil_mode):
    span = size + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _pool_geometry(shape, kernel, stride, padding, dilation, ceil_mode):
    """(Ho, Wo, padded shape): the input padded on the right as far as ceil_mode's last window
    reaches."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    n, c, h, w = shape
    ho = pool_out_size(h, kh, sh, ph, dh, ceil_mode)
    wo = pool_out_size(w, kw, sw, pw, dw, ceil_mode)
    right_h = max(ph, (ho - 1) * sh + dh * (kh - 1) + 1 - h - ph)
    right_w = max(pw, (wo - 1) * sw + dw * (kw - 1) + 1 - w - pw)
    return ho, wo, (n, c, h + ph + right_h, w + pw + right_w)


def _pad_to(x, padded_shape, padding, fill):
    ph, pw = padding
    right_h = padded_shape[2] - x.shape[2] - ph
    right_w = padded_shape[3] - x.shape[3] - pw
    if not (ph or pw or right_h or right_w):
        return x
    return np.pad(x, ((0, 0), (0, 0), (ph, right_h), (pw, right_w)),
                  constant_values=np.asarray(fill, x.dtype))


def _pool_windows(x, kernel, stride, padding, dilation, ceil_mode, fill):
    """(N, C, Ho, Wo, kh, kw) windows of ``x`` padded with ``fill``, and the padded shape."""
    ho, wo, padded = _pool_geometry(x.shape, kernel, stride, padding, dilation, ceil_mode)
    xp = _pad_to(x, padded, padding, fill)
    return _windows(xp, kernel[0], kernel[1], stride, dilation)[:, :, :ho, :wo], padded


def _batched(x):
    return (x[None], True) if x.ndim == 3 else (x, False)


def _scatter_windows(gv, padded_shape, x_shape, kernel, stride, padding, dilation):
    """Adds window gradients (N, C, Ho, Wo, kh, kw) back into the input: one slice per tap."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    ho, wo = gv.shape[2], gv.shape[3]
    gxp = np.zeros(padded_shape, dtype=gv.dtype)
    for i in range(kh):
        rows = slice(i * dh, i * dh + sh * (ho - 1) + 1, sh)
        for j in range(kw):
            gxp[:, :, rows, j * dw:j * dw + sw * (wo - 1) + 1:sw] += gv[:, :, :, :, i, j]
    h, w = x_shape[-2], x_shape[-1]
    return np.ascontiguousarray(gxp[:, :, ph:ph + h, pw:pw + w]).reshape(x_shape)


def _taps(xp, ho, wo, kernel, stride, dilation):
    """(tap number, (N, C, Ho, Wo) strided view of the padded input under that tap)."""
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    for i in range(kh):
        rows = slice(i * dh, i * dh + sh * (ho - 1) + 1, sh)
        for j in range(kw):
            yield i * kw + j, xp[:, :, rows, j * dw:j * dw + sw * (wo - 1) + 1:sw]


def _max_taps(x, kernel, stride, padding, dilation, ceil_mode):
    """(max, tap of the max, padded shape, Ho, Wo): one elementwise pass per kernel tap. The
    tap is PyTorch's: the first maximum, or the last NaN."""
    ho, wo, padded = _pool_geometry(x.shape, kernel, stride, padding, dilation, ceil_mode)
    xp = _pad_to(x, padded, padding, -np.inf)
    best = tap = None
    for t, val in _taps(xp, ho, wo, kernel, stride, dilation):
        if best is None:
            best = val.copy()
            tap = np.zeros(best.shape, np.int64)
            continue
        better = (val > best) | np.isnan(val)
        np.copyto(best, val, where=better)
        tap[better] = t
    return best, tap, padded, ho, wo


def max_pool_forward(x, kernel, stride, padding, dilation, ceil_mode):
    xb, unbatched = _batched(x)
    out = _max_taps(xb, kernel, stride, padding, dilation, ceil_mode)[0]
    return out[0] if unbatched else out


def max_pool_indices(x, kernel, stride, padding, dilation, ceil_mode):
    """PyTorch's ``return_indices``: flat h * W + w positions in the unpadded input."""
    xb, unbatched = _batched(x)
    _, tap, _, ho, wo = _max_taps(xb, kernel, stride, padding, dilation, ceil_mode)
    kw = kernel[1]
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    hh = np.arange(ho)[:, None] * sh - ph + (tap // kw) * dh
    ww = np.arange(wo)[None, :] * sw - pw + (tap % kw) * dw
    idx = (hh * xb.shape[3] + ww).astype(np.int64)
    return idx[0] if unbatched else idx


def max_pool_grad(g, ans, x, kernel, stride, padding, dilation, ceil_mode):
    xb, unbatched = _batched(x)
    gb = g[None] if unbatched else g
    _, tap, padded, ho, wo = _max_taps(xb, kernel, stride, padding, dilation, ceil_mode)
    gxp = np.zeros(padded, dtype=g.dtype)
    zero = np.zeros((), g.dtype)
    for t, target in _taps(gxp, ho, wo, kernel, stride, dilation):
        target += np.where(tap == t, gb, zero)
    ph, pw = padding
    h, w = x.shape[-2], x.shape[-1]
    return np.ascontiguousarray(gxp[:, :, ph:ph + h, pw:pw + w]).reshape(x.shape)


def _avg_divisors(size, out, k, s, p, count_include_pad):
    """Per output position along one axis: the window length PyTorch divides by."""
    start = np.arange(out) * s - p
    end = np.minimum(start + k, size + p)
    whole = end - start
    inside = np.minimum(end, size) - np.maximum(start, 0)
    return whole if count_include_pad else inside


def _avg_scale(x_shape, out_shape, kernel, stride, padding, count_include_pad, divisor_override,
               dtype):
    if divisor_override:
        return np.asarray(1 / divisor_override, dtype)
    dh = _avg_divisors(x_shape[-2], out_shape[-2], kernel[0], stride[0], padding[0],
                       count_include_pad)
    dw = _avg_divisors(x_shape[-1], out_shape[-1], kernel[1], stride[1], padding[1],
                       count_include_pad)
    return (1 / (dh[:, None] * dw[None, :]).astype(np.float64)).astype(dtype)


def avg_pool_forward(x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
    xb, unbatched = _batched(x)
    v, _ = _pool_windows(xb, kernel, stride, padding, (1, 1), ceil_mode, 0)
    total = v.sum(axis=(4, 5))
    out = total * _avg_scale(x.shape, total.shape, kernel, stride, padding, count_include_pad,
                             divisor_override, x.dtype)
    return out[0] if unbatched else out


def avg_pool_grad(g, ans, x, kernel, stride, padding, ceil_mode, count_include_pad,
                  divisor_override):
    xb, unbatched = _batched(x)
    gb = g[None] if unbatched else g
    v, padded = _pool_windows(xb, kernel, stride, padding, (1, 1), ceil_mode, 0)
    scaled = gb * _avg_scale(x.shape, gb.shape, kernel, stride, padding, count_include_pad,
                             divisor_override, g.dtype)
    gv = np.broadcast_to(scaled[..., None, None], v.shape)
    return _scatter_windows(gv, padded, x.shape, kernel, stride, padding, (1, 1))


def _adaptive_matrix(size, out, dtype):
    """(out, size): row i averages PyTorch's window [floor(i*size/out), ceil((i+1)*size/out))."""
    i = np.arange(out)
    start = (i * size) // out
    end = -((-(i + 1) * size) // out)
    pos = np.arange(size)
    inside = (pos[None, :] >= start[:, None]) & (pos[None, :] < end[:, None])
    return (inside / (end - start)[:, None]).astype(dtype)


def adaptive_avg_pool_forward(x, output_size):
    a = _adaptive_matrix(x.shape[-2], output_size[0], x.dtype)
    b = _adaptive_matrix(x.shape[-1], output_size[1], x.dtype)
    return np.ascontiguousarray(a @ x @ b.T)


def adaptive_avg_pool_grad(g, ans, x, output_size):
    a = _adaptive_matrix(x.shape[-2], output_size[0], g.dtype)
    b = _adaptive_matrix(x.shape[-1], output_size[1], g.dtype)
    return np.ascontiguousarray(a.T @ g @ b)


# -- normalisation and embedding -------------------------------------------------------------------

def _bn_axes(x):
    return (0, *range(2, x.ndim)), (1, x.shape[1]) + (1,) * (x.ndim - 2)


def _bn_stats(x, training, running_mean, running_var, eps):
    """(mean, invstd) broadcastable over ``x``: the batch's (biased variance) in training, the
    running ones otherwise."""
    axes, shape = _bn_axes(x)
    if training:
        mean = x.mean(axis=axes)
        var = x.var(axis=axes)
    else:
        mean, var = running_mean, running_var
    invstd = 1 / np.sqrt(var + np.asarray(eps, x.dtype))
    return mean.reshape(shape).astype(x.dtype), invstd.reshape(shape).astype(x.dtype)


def batch_norm_forward(x, w, b, running_mean, running_var, training, momentum, eps):
    axes, shape = _bn_axes(x)
    mean, invstd = _bn_stats(x, training, running_mean, running_var, eps)
    if training and running_mean is not None:  # PyTorch's kernel updates the buffers in place
        n = x.size // x.shape[1]
        m = np.asarray(momentum, x.dtype)
        running_mean *= 1 - m
        running_mean += m * mean.reshape(-1)
        unbiased = x.var(axis=axes) * np.asarray(n / max(n - 1, 1), x.dtype)
        running_var *= 1 - m
        running_var += m * unbiased
    out = (x - mean) * invstd
    if w is not None:
        out = out * w.reshape(shape)
    if b is not None:
        out = out + b.reshape(shape)
    return out


def batch_norm_grad_input(g, ans, x, w, b, running_mean, running_var, training, momentum, eps):
    axes, shape = _bn_axes(x)
    mean, invstd = _bn_stats(x, training, running_mean, running_var, eps)
    gw = g if w is None else g * w.reshape(shape)
    if not training:
        return gw * invstd
    n = np.asarray(x.size // x.shape[1], x.dtype)
    xhat = (x - mean) * invstd
    return invstd / n * (n * gw - gw.sum(axis=axes, keepdims=True)
                         - xhat * (gw * xhat).sum(axis=axes, keepdims=True))


def batch_norm_grad_weight(g, ans, x, w, b, running_mean, running_var, training, momentum, eps):
    axes, _ = _bn_axes(x)
    mean, invstd = _bn_stats(x, training, running_mean, running_var, eps)
    return (g * ((x - mean) * invstd)).sum(axis=axes)


def batch_norm_grad_bias(g, ans, x, w, b, running_mean, running_var, training, momentum, eps):
    return g.sum(axis=_bn_axes(g)[0])


def _ln_stats(x, k, eps):
    axes = tuple(range(x.ndim - k, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    return axes, mean, 1 / np.sqrt(var + np.asarray(eps, x.dtype))


def layer_norm_forward(x, w, b, normalized_shape, eps):
    _, mean, invstd = _ln_stats(x, len(normalized_shape), eps)
    out = (x - mean) * invstd
    if w is not None:
        out = out * w
    if b is not None:
        out = out + b
    return out


def layer_norm_grad_input(g, ans, x, w, b, normalized_shape, eps):
    axes, mean, invstd = _ln_stats(x, len(normalized_shape), eps)
    xhat = (x - mean) * invstd
    gw = g if w is None else g * w
    return invstd * (gw - gw.mean(axis=axes, keepdims=True)
                     - xhat * (gw * xhat).mean(axis=axes, keepdims=True))


def layer_norm_grad_weight(g, ans, x, w, b, normalized_shape, eps):
    _, mean, invstd = _ln_stats(x, len(normalized_shape), eps)
    return g * ((x - mean) * invstd)  # summed down to the weight's shape by the backward loop


def layer_norm_grad_bias(g, ans, x, w, b, normalized_shape, eps):
    return g


def embedding_forward(w, indices, padding_idx, num_weights):
    return w[indices]


def embedding_grad(g, ans, w, indices, padding_idx, num_weights):
    out = np.zeros((num_weights, g.shape[-1]), dtype=g.dtype)
    np.add.at(out, indices.reshape(-1), g.reshape(-1, g.shape[-1]))
    if padding_idx >= 0:
        out[padding_idx] = 0
    return out


# -- LSTM layer (PyTorch's oneDNN kernel on CPU: one MkldnnRnnLayerBackward0 per layer) ------------

def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def lstm_layer_forward(x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse):
    """One direction of one layer over (T, B, I) input: (output (T, B, H), hy, cy, the gates and
    cells the backward reads). Gates are PyTorch's order: input, forget, cell, output."""
    t_len = x.shape[0]
    hidden = w_hh.shape[1]
    xw = x @ w_ih.T
    if b_ih is not None:
        xw += b_ih + b_hh
    h, c = h0, c0
    out = np.empty((t_len, *h0.shape), dtype=x.dtype)
    acts = np.empty((t_len, h0.shape[0], 4 * hidden), dtype=x.dtype)
    cells = np.empty((t_len + 1, *c0.shape), dtype=x.dtype)
    order = range(t_len - 1, -1, -1) if reverse else range(t_len)
    for k, t in enumerate(order):
        cells[k] = c
        gates = xw[t] + h @ w_hh.T
        a = acts[t]
        a[:, :2 * hidden] = _sigmoid(gates[:, :2 * hidden])
        a[:, 2 * hidden:3 * hidden] = np.tanh(gates[:, 2 * hidden:3 * hidden])
        a[:, 3 * hidden:] = _sigmoid(gates[:, 3 * hidden:])
        i, f, g, o = np.split(a, 4, axis=1)
        c = f * c + i * g
        h = o * np.tanh(c)
        out[t] = h
    cells[t_len] = c
    return out, h, c, (acts, cells)


def lstm_layer_backward(g_out, g_hy, g_cy, x, w_ih, w_hh, h0, out, cache, reverse):
    """Back-propagation through time of ``lstm_layer_forward``: gradients of (x, w_ih, w_hh,
    bias, h0, c0); the bias gradient serves both b_ih and b_hh."""
    acts, cells = cache
    t_len = x.shape[0]
    hidden = w_hh.shape[1]
    dgates = np.empty_like(acts)
    dh = g_hy.copy()
    dc = g_cy.copy()
    order = range(t_len - 1, -1, -1) if reverse else range(t_len)
    for k, t in reversed(list(enumerate(order))):
        dh = dh + g_out[t]
        i, f, g, o = np.split(acts[t], 4, axis=1)
        c_prev, c = cells[k], cells[k + 1]
        tc = np.tanh(c)
        dc = dc + dh * o * (1 - tc * tc)
        d = dgates[t]
        d[:, :hidden] = dc * g * i * (1 - i)
        d[:, hidden:2 * hidden] = dc * c_prev * f * (1 - f)
        d[:, 2 * hidden:3 * hidden] = dc * i * (1 - g * g)
        d[:, 3 * hidden:] = dh * tc * o * (1 - o)
        dc = dc * f
        dh = d @ w_hh
    prev_h = np.empty_like(out)  # the hidden state each step read
    if reverse:
        prev_h[:-1] = out[1:]
        prev_h[-1] = h0
    else:
        prev_h[1:] = out[:-1]
        prev_h[0] = h0
    flat = dgates.reshape(-1, 4 * hidden)
    gx = dgates @ w_ih
    gw_ih = flat.T @ x.reshape(-1, x.shape[-1])
    gw_hh = flat.T @ prev_h.reshape(-1, hidden)
    gb = flat.sum(axis=0)
    return gx, gw_ih, gw_hh, gb, dh, dc


# -- attention (PyTorch's flash attention for CPU: ScaledDotProductFlashAttentionForCpuBackward0) --

def _repeat_heads(k, groups):
    return k if groups == 1 else np.repeat(k, groups, axis=-3)


def sdpa_forward(q, k, v, mask, scale, groups):
    """(output, the attention probabilities) of softmax(q kᵀ · scale + mask) v over (..., H, L,
    E) arrays; ``mask`` is additive (``-inf`` masks out), ``groups`` query heads share a key
    head (GQA). A row masked out entirely gives zeros."""
    scores = (q @ np.swapaxes(_repeat_heads(k, groups), -1, -2)) * np.asarray(scale, q.dtype)
    if mask is not None:
        scores = scores + mask
    top = scores.max(axis=-1, keepdims=True)
    dead = np.isneginf(top)
    e = np.exp(scores - np.where(dead, 0, top))
    total = e.sum(axis=-1, keepdims=True)
    probs = np.where(dead, 0, e / np.where(dead, 1, total)).astype(q.dtype, copy=False)
    return probs @ _repeat_heads(v, groups), probs


def _sum_groups(g, groups):
    if groups == 1:
        return g
    shape = g.shape
    return g.reshape(*shape[:-3], shape[-3] // groups, groups, *shape[-2:]).sum(axis=-3)


def sdpa_backward(g, q, k, v, probs, scale, groups):
    """Gradients of (q, k, v) of ``sdpa_forward``."""
    s = np.asarray(scale, q.dtype)
    kr, vr = _repeat_heads(k, groups), _repeat_heads(v, groups)
    gv = np.swapaxes(probs, -1, -2) @ g
    gp = g @ np.swapaxes(vr, -1, -2)
    gs = probs * (gp - (gp * probs).sum(axis=-1, keepdims=True))
    gq = (gs @ kr) * s
    gk = (np.swapaxes(gs, -1, -2) @ q) * s
    return gq, _sum_groups(gk, groups), _sum_groups(gv, groups)


# -- packed sequences (PackPaddedSequenceBackward0) ----------------------------------------------

def batch_sizes_of(lengths):
    """How many of the sequences (of ``lengths``, longest first) run at each step."""
    return [sum(n > t for n in lengths) for t in range(lengths[0] if lengths else 0)]


def pack_padded(x, lengths, batch_first, shape):
    steps = np.swapaxes(x, 0, 1) if batch_first else x
    return np.concatenate([steps[t, :b] for t, b in enumerate(batch_sizes_of(lengths))])


def pack_padded_grad(g, ans, x, lengths, batch_first, shape):
    out = np.zeros_like(g, shape=shape)
    steps = np.swapaxes(out, 0, 1) if batch_first else out
    offset = 0
    for t, b in enumerate(batch_sizes_of(lengths)):
        steps[t, :b] = g[offset:offset + b]
        offset += b
    return out
