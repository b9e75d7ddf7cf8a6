"""Special functions for the op table's rows (``engine/ops/table.py``), as ATen computes them
(``aten/src/ATen/native/Math.h``, ``Distributions.h``), in double and returned in the input's
dtype: lgamma (C's, through ``math``), digamma, trigamma, polygamma (Hurwitz zeta), and the
reparameterised gradients of gamma and Dirichlet draws (``standard_gamma_grad_one``,
``dirichlet_grad_one``), per element."""

from __future__ import annotations

import math

import numpy as np


def elementwise(fn, x: np.ndarray) -> np.ndarray:
    """The double ``fn`` per element (math's lgamma/erf: numpy has none), in ``x``'s dtype."""
    flat = np.fromiter(map(fn, x.reshape(-1).astype(np.float64).tolist()), np.float64, x.size)
    return flat.reshape(x.shape).astype(x.dtype, copy=False)


def lgamma1(v: float) -> float:
    try:
        return math.lgamma(v)
    except ValueError:  # the poles 0, -1, -2, ...: PyTorch (C's lgamma) gives +inf
        return math.inf


_PSI_10 = 2.25175258906672110764
_PSI_A = (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
          -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
          8.33333333333333333333E-2)


def digamma(x: np.ndarray) -> np.ndarray:
    """ATen's ``calc_digamma`` (Math.h), vectorised: reflection below 0, the recurrence up to 10,
    then the asymptotic series."""
    a = np.asarray(x, np.float64)
    out = np.zeros_like(a)
    neg = a < 0
    z = np.where(neg, 1 - a, a)
    with np.errstate(all="ignore"):
        refl = np.where(neg, -math.pi / np.tan(math.pi * np.modf(a)[0]), 0.0)
        while True:
            small = z < 10
            if not small.any():
                break
            out -= np.where(small, 1 / np.where(small, z, 1), 0)
            z = np.where(small, z + 1, z)
        zz = 1.0 / (z * z)
        poly = np.zeros_like(z)
        for c in _PSI_A:
            poly = poly * zz + c
        tail = np.where(z < 1e17, zz * poly, 0.0)
        out = np.where(z == 10, out + _PSI_10, out + np.log(z) - 0.5 / z - tail) + refl
    out = np.where(a == 0, np.copysign(np.inf, -a), out)
    out = np.where(neg & (a == np.trunc(a)), np.nan, out)
    return out.astype(np.asarray(x).dtype, copy=False)


def trigamma(x: np.ndarray) -> np.ndarray:
    """ATen's ``calc_trigamma``: reflection below 1/2, six steps of the recurrence, the series."""
    a = np.asarray(x, np.float64)
    low = a < 0.5
    with np.errstate(all="ignore"):
        result = np.where(low, -(math.pi ** 2) / np.sin(math.pi * a) ** 2, 0.0)
        z = np.where(low, 1 - a, a)
        for _ in range(6):
            result = result + 1 / (z * z)
            z = z + 1
        ixx = 1 / (z * z)
        result = result + (1 + 1 / (2 * z) + ixx * (1 / 6 - ixx * (1 / 30 - ixx * (1 / 42)))) / z
    return np.where(low, -result, result).astype(np.asarray(x).dtype, copy=False)


# Cephes' zeta (ATen's ``zeta``): the Euler-Maclaurin expansion
_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
           7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
           -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18)
_MACHEP = 1.11022302462515654042e-16


def _zeta1(x: float, q: float) -> float:
    """The Hurwitz zeta function sum over k >= 0 of (k + q)^-x, for x > 1."""
    if x == 1:
        return math.inf
    if x < 1 or math.isnan(q):
        return math.nan
    if q <= 0:
        if q == math.floor(q):
            return math.inf
        if x != math.floor(x):
            return math.nan
    s = q ** -x
    a, b, i = q, 0.0, 0
    while i < 9 or a <= 9:
        i += 1
        a += 1
        b = a ** -x
        s += b
        if abs(b) < _MACHEP * abs(s):  # C's b / s is inf, not an error, at s = 0
            return s
    w = a
    s += b * w / (x - 1) - 0.5 * b
    a, k = 1.0, 0.0
    for c in _ZETA_A:
        a *= x + k
        b /= w
        t = a * b / c
        s += t
        if abs(t) < _MACHEP * abs(s):
            return s
        k += 1
        a *= x + k
        b /= w
        k += 1
    return s


def polygamma(n: int, x: np.ndarray) -> np.ndarray:
    """ATen's ``calc_polygamma``: digamma, trigamma, else ±n!·zeta(n + 1, x)."""
    if n == 0:
        return digamma(x)
    if n == 1:
        return trigamma(x)
    factor = (1.0 if n % 2 else -1.0) * math.exp(math.lgamma(n + 1.0))
    return elementwise(lambda v: factor * _zeta1(n + 1.0, v), x)


def _digamma1(x: float) -> float:
    return float(digamma(np.array([x]))[0])


_COEF_UV = ((0.16009398, -0.094634809, 0.025146376, -0.0030648343,
             1, 0.32668115, 0.10406089, 0.0014179084),
            (0.53487893, 0.1298071, 0.065735949, -0.0015649758,
             0.16639465, 0.020070113, -0.0035938915, -0.00058392623),
            (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777,
             0.017050642, -0.0021309326, 0.00085092367, -1.5247877e-07))


def gamma_grad_one(alpha: float, x: float) -> float:
    """-(d/dalpha cdf(x; alpha)) / pdf(x; alpha): a Taylor series for small x, Rice's saddle
    point for large alpha, else a rational approximation."""
    if x < 0.8:
        numer, denom = 1.0, alpha
        series1, series2 = numer / denom, numer / (denom * denom)
        for i in range(1, 6):
            numer *= -x / i
            denom += 1
            series1 += numer / denom
            series2 += numer / (denom * denom)
        pow_x_alpha = x ** alpha
        gamma_pdf = x ** (alpha - 1) * math.exp(-x)
        gamma_cdf = pow_x_alpha * series1
        gamma_cdf_alpha = (math.log(x) - _digamma1(alpha)) * gamma_cdf - pow_x_alpha * series2
        result = -gamma_cdf_alpha / gamma_pdf
        return 0.0 if math.isnan(result) else result
    if alpha > 8.0:
        if 0.9 * alpha <= x <= 1.1 * alpha:
            numer_1 = 1 + 24 * alpha * (1 + 12 * alpha)
            numer_2 = (1440 * (alpha * alpha) + 6 * x * (53 - 120 * x) - 65 * x * x / alpha
                       + alpha * (107 + 3600 * x))
            return numer_1 * numer_2 / (1244160 * (alpha * alpha) * (alpha * alpha))
        denom = math.sqrt(8 * alpha)
        term2 = denom / (alpha - x)
        term3 = (x - alpha - alpha * math.log(x / alpha)) ** -1.5
        term23 = term2 - term3 if x < alpha else term2 + term3
        term1 = (math.log(x / alpha) * term23
                 - math.sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x)))
        stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
        return -stirling * x * term1 / denom
    u = math.log(x / alpha)
    v = math.log(alpha)
    c = [_COEF_UV[0][i] + u * (_COEF_UV[1][i] + u * _COEF_UV[2][i]) for i in range(8)]
    p = c[0] + v * (c[1] + v * (c[2] + v * c[3]))
    q = c[4] + v * (c[5] + v * (c[6] + v * c[7]))
    return math.exp(p / q)


def _beta_grad_alpha_small(x, alpha, beta):
    factor = _digamma1(alpha) - _digamma1(alpha + beta) - math.log(x)
    numer = 1.0
    series = numer / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        numer *= (i - beta) * x / i
        denom = alpha + i
        series += numer / denom * (factor + 1 / denom)
    result = x * (1 - x) ** -beta * series
    return 0.0 if math.isnan(result) else result


def _beta_grad_beta_small(x, alpha, beta):
    factor = _digamma1(alpha + beta) - _digamma1(beta)
    numer, betas, dbetas, series = 1.0, 1.0, 0.0, factor / alpha
    for i in range(1, 9):
        numer *= -x / i
        dbetas = dbetas * (beta - i) + betas
        betas = betas * (beta - i)
        series += numer / (alpha + i) * (dbetas + factor * betas)
    result = -((1 - x) ** (1 - beta)) * series
    return 0.0 if math.isnan(result) else result


def _beta_grad_alpha_mid(x, alpha, beta):
    total = alpha + beta
    mean = alpha / total
    std = math.sqrt(alpha * beta / (total + 1)) / total
    if mean - 0.1 * std <= x <= mean + 0.1 * std:  # avoids the singularity at x = mean
        poly = 47 * x * (beta * beta) * (beta * beta) + alpha * (
            (43 + 20 * (16 + 27 * beta) * x) * (beta * beta) * beta + alpha * (
                3 * (59 + 180 * beta - 90 * x) * (beta * beta) + alpha * (
                    (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (
                        8 * (1 - x) * (135 * beta - 11)))))
        prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
        prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
        return prefactor_num / (1 - x) * poly / prefactor_den
    prefactor = -x / math.sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha))
                * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)
    axbx = alpha * (x - 1) + beta * x
    term1_den = math.sqrt(2 * alpha / beta) * total ** 1.5 * axbx * axbx
    term1 = term1_num / term1_den
    term2 = 0.5 * math.log(alpha / (total * x))
    term3 = math.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4_base = (beta * math.log(beta / (total * (1 - x)))
                  + alpha * math.log(alpha / (total * x)))
    term4 = term4_base ** -1.5
    term1234 = term1 + term2 * (term3 + (term4 if x < mean else -term4))
    return stirling * prefactor * term1234


_C = np.array([
    [[[1.003668233, -0.01061107488, -0.0657888334, 0.01201642863],
      [0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033],
      [-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013]],
     [[0.221950385, -0.3187676331, 0.01799915743, 0.01074823814],
      [-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057],
      [0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05]],
     [[-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565],
      [0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181],
      [0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05]]],
    [[[1, -0.02924021934, -0.04438342661, 0.007285809825],
      [0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521],
      [-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149]],
     [[0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273],
      [0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956],
      [-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05]],
     [[0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05],
      [0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05],
      [-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06]]]])


def dirichlet_grad_one(x: float, alpha: float, total: float) -> float:
    """The scaled reparameterised gradient of a Beta(alpha, total - alpha) draw ``x``."""
    beta = total - alpha
    boundary = total * x * (1 - x)
    if x <= 0.5 and boundary < 2.5:
        return _beta_grad_alpha_small(x, alpha, beta)
    if x >= 0.5 and boundary < 0.75:
        return -_beta_grad_beta_small(1 - x, beta, alpha)
    if alpha > 6 and beta > 6:
        return _beta_grad_alpha_mid(x, alpha, beta)
    u = math.log(x)
    a = math.log(alpha) - u
    b = math.log(total) - a
    pow_u, pow_a = (1, u, u * u), (1, a, a * a)
    p = q = 0.0
    for i in range(3):
        for j in range(3):
            ua = pow_u[i] * pow_a[j]
            c0, c1 = _C[0, i, j], _C[1, i, j]
            p += ua * (c0[0] + b * (c0[1] + b * (c0[2] + b * c0[3])))
            q += ua * (c1[0] + b * (c1[1] + b * (c1[2] + b * c1[3])))
    approx = x * (_digamma1(total) - _digamma1(alpha)) / beta
    return p / q * approx


def per_element(fn, *arrays) -> np.ndarray:
    flat = [a.reshape(-1).astype(np.float64).tolist() for a in np.broadcast_arrays(*arrays)]
    out = np.array([fn(*v) for v in zip(*flat)], np.float64)
    return out.reshape(np.broadcast_shapes(*(a.shape for a in arrays))).astype(arrays[0].dtype)
