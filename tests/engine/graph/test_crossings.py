"""Crossing counts against a brute-force count of every pair of segments."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.graph.crossings import count_crossings, total_crossings


def brute_force(group, upper, lower, n_groups):
    out = np.zeros(n_groups, dtype=np.int64)
    for i in range(len(group)):
        for j in range(len(group)):
            if group[i] == group[j] and upper[i] < upper[j] and lower[i] > lower[j]:
                out[group[i]] += 1
    return out


segments = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 9), st.integers(0, 40)),
                    max_size=60)


@settings(max_examples=60, deadline=None)
@given(segments)
def test_matches_brute_force(rows):
    rows = sorted(set(rows))  # a segment is drawn once
    group = np.array([r[0] for r in rows], dtype=np.int64)
    upper = np.array([r[1] for r in rows], dtype=np.int64)
    lower = np.array([r[2] for r in rows], dtype=np.int64)
    expected = brute_force(group, upper, lower, 4)
    np.testing.assert_array_equal(count_crossings(group, upper, lower, 4), expected)


def test_known_small_cases():
    # Two segments forming an X cross once; sharing an end they never do.
    assert total_crossings(np.array([0, 0]), np.array([0, 1]), np.array([1, 0]), 1) == 1
    assert total_crossings(np.array([0, 0]), np.array([0, 0]), np.array([1, 0]), 1) == 0
    assert total_crossings(np.array([0, 0]), np.array([0, 1]), np.array([0, 0]), 1) == 0
    # A complete reversal of n segments has n(n-1)/2 crossings.
    n = 300
    got = total_crossings(np.zeros(n, dtype=np.int64), np.arange(n), np.arange(n)[::-1], 1)
    assert got == n * (n - 1) // 2
    # Pairs of layers are independent.
    got = count_crossings(np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]),
                          np.array([1, 0, 0, 1]), 2)
    np.testing.assert_array_equal(got, [1, 0])
