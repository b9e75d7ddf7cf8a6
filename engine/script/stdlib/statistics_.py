"""``import statistics``: the functions of data, given the data as a (size-checked) list."""

from __future__ import annotations

import statistics

from ._support import check_count

MISSING_NOTE = "only statistics' functions of data are (NormalDist is not)"

_ONE = ("mean", "fmean", "geometric_mean", "harmonic_mean", "median", "median_low",
        "median_high", "median_grouped", "mode", "multimode", "pstdev", "pvariance", "stdev",
        "variance")
_TWO = ("correlation", "covariance", "linear_regression")


def build(interp) -> dict:
    names = {"StatisticsError": statistics.StatisticsError}

    def one(real):
        def fn(data, *args, **kwargs):
            return real(interp._materialize(data), *args, **kwargs)

        fn.__name__ = real.__name__
        return fn

    def two(real):
        def fn(x, y, /, *args, **kwargs):
            return real(interp._materialize(x), interp._materialize(y), *args, **kwargs)

        fn.__name__ = real.__name__
        return fn

    for name in _ONE:
        if hasattr(statistics, name):
            names[name] = one(getattr(statistics, name))
    for name in _TWO:
        if hasattr(statistics, name):
            names[name] = two(getattr(statistics, name))

    def quantiles(data, *, n=4, method="exclusive"):
        check_count(n, interp.limits.max_list, "quantiles(n=...): n")
        return statistics.quantiles(interp._materialize(data), n=n, method=method)

    names["quantiles"] = quantiles
    return names
