"""Printing: the engine's repr/str of tensors, sizes, dtypes, nodes and ``torch.return_types``
must be PyTorch's, character for character (node addresses normalised)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import engine

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)
NAN, INF = float("nan"), float("inf")

ARRAYS = {
    "ints_as_float": np.array([1.0, 2.0, 3.0], dtype=np.float32),
    "decimals": np.array([1.5, 2.25, -3.125], dtype=np.float32),
    "small": np.array([1e-5, 1.0], dtype=np.float32),
    "large": np.array([1e10, 1.0], dtype=np.float32),
    "huge_int_mode": np.array([123456789.0], dtype=np.float32),
    "ratio_over_1000": np.array([0.1, 1000.5], dtype=np.float32),
    "int_ratio_over_1000": np.array([1.0, 5000.0], dtype=np.float32),
    "tiny_negative": np.array([1.0, -1.0], dtype=np.float32) * np.float32(1e-5),
    "nan_inf": np.array([NAN, 1.0, INF], dtype=np.float32),
    "only_nan": np.array([NAN], dtype=np.float32),
    "inf_pair": np.array([INF, -INF], dtype=np.float32),
    "nan_with_decimals": np.array([NAN, 0.5, -2.25], dtype=np.float32),
    "negative_zero": np.array([-0.0, 1.0], dtype=np.float32),
    "negative_zero_alone": np.array([-0.0, 0.0], dtype=np.float32),
    "zeros": np.zeros(3, dtype=np.float32),
    "zero_dim": np.array(3.5, dtype=np.float32),
    "zero_dim_int_mode": np.array(-2.0, dtype=np.float32),
    "zero_dim_sci": np.array(1e-7, dtype=np.float32),
    "zero_dim_long": np.array(7, dtype=np.int64),
    "zero_dim_bool": np.array(True),
    "empty": np.zeros(0, dtype=np.float32),
    "empty_2d": np.zeros((0, 3), dtype=np.float32),
    "empty_2d_other": np.zeros((2, 0), dtype=np.float32),
    "empty_long": np.zeros(0, dtype=np.int64),
    "empty_double": np.zeros((1, 0), dtype=np.float64),
    "bools": np.array([True, False, True]),
    "bool_matrix": np.array([[True], [False]]),
    "longs": np.array([[1, -20], [300, 4]], dtype=np.int64),
    "int32": np.array([1, 2, 3], dtype=np.int32),
    "double": np.array([1.0, 2.0], dtype=np.float64),
    "double_decimals": np.array([0.1, 1 / 3], dtype=np.float64),
    "half": np.array([0.5, 2.0], dtype=np.float16),
    "mixed_widths": np.array([[0.1234567, 12345.678]], dtype=np.float32),
    "matrix": (np.arange(30, dtype=np.float32).reshape(5, 6) / 7),
    "cube": np.ones((2, 3, 4), dtype=np.float32),
    "four_d": np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4) - 11.5,
    "wrap_line": np.arange(40, dtype=np.float32) / 3,
    "wrap_ints": np.arange(100, dtype=np.float32),
    "wrap_longs": np.arange(60, dtype=np.int64) * 1000,
    "summarized_vector": np.arange(2000, dtype=np.float32),
    "summarized_matrix": RNG.standard_normal((40, 40)).astype(np.float32),
    "summarized_cube": np.arange(1331, dtype=np.float32).reshape(11, 11, 11),
    "summarized_long": np.arange(1500, dtype=np.int64),
    "summarized_bool": np.arange(1200) % 3 == 0,
    "just_at_threshold": np.arange(1000, dtype=np.float32),
    "random_normal": RNG.standard_normal((3, 5)).astype(np.float32),
    "random_wide": (RNG.standard_normal((2, 12)) * 1e3).astype(np.float32),
}


@pytest.mark.parametrize("name", sorted(ARRAYS))
def test_tensor_repr_matches_torch(name):
    a = ARRAYS[name]
    assert repr(engine.tensor(a)) == repr(torch.tensor(a))
    assert str(engine.tensor(a)) == str(torch.tensor(a))


FLOATING = [k for k, a in ARRAYS.items() if a.dtype.kind == "f" and a.dtype != np.float16]


@pytest.mark.parametrize("name", sorted(FLOATING))
def test_requires_grad_and_grad_fn_suffixes_match_torch(name):
    a = ARRAYS[name]
    leaf_e, leaf_t = engine.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    assert repr(leaf_e) == repr(leaf_t)
    assert repr(leaf_e * 2) == repr(leaf_t * 2)
    assert repr(leaf_e.sum()) == repr(leaf_t.sum())


def normalise(text: str) -> str:
    return re.sub(r"0x[0-9a-f]+", "0x?", text)


def _nodes_and_others(t):
    x = t.tensor([1.0, -2.0], requires_grad=True)
    y = x * 2
    z = y.sum()
    w = x.clone()
    w[0] = 3.0
    return [
        x.shape, t.ones(2, 3, 4).shape, t.tensor(1.0).shape, t.zeros(0).shape, x.size(),
        y.grad_fn, z.grad_fn, y.grad_fn.next_functions, w.grad_fn, t.float32, t.int64, t.bool,
        x.dtype, t.float64, t.tensor([[1.0, 5.0], [3.0, 2.0]]).max(1),
        t.tensor([[1.0, 5.0], [3.0, 2.0]]).min(dim=0, keepdim=True), x.device,
    ]


def test_size_dtype_node_and_return_type_reprs_match_torch():
    for e, t in zip(_nodes_and_others(engine), _nodes_and_others(torch)):
        assert normalise(repr(e)) == normalise(repr(t))
        assert normalise(str(e)) == normalise(str(t))


def test_print_options_match_torch():
    a = (np.arange(12, dtype=np.float32).reshape(3, 4) / 7)
    try:
        for options in ({"precision": 2}, {"sci_mode": True}, {"linewidth": 30},
                        {"threshold": 5, "edgeitems": 1}, {"profile": "short"}):
            engine.set_printoptions(**options)
            torch.set_printoptions(**options)
            assert repr(engine.tensor(a)) == repr(torch.tensor(a)), options
    finally:
        engine.set_printoptions(profile="default")
        torch.set_printoptions(profile="default")
