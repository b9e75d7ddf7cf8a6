"""Object, string and other non-numeric data is refused wherever a tensor is made or assigned,
with PyTorch's exception type and message (torch 2.13, checked against it)."""

from __future__ import annotations

import numpy as np
import pytest

import engine as torch

SUPPORTED = ("The only supported types are: float64, float32, float16, complex64, complex128, "
             "int64, int32, int16, int8, uint64, uint32, uint16, uint8, and bool.")


def _ones_grad():
    return torch.ones(3, requires_grad=True)


def _set_data(value):
    t = torch.ones(3)
    t.data = value


def _set_grad(value):
    t = _ones_grad()
    t.grad = value


CASES = [
    (lambda: torch.tensor(["a"]), ValueError, "too many dimensions 'str'"),
    (lambda: torch.tensor("a"), TypeError, "new(): invalid data type 'str'"),
    (lambda: torch.tensor([1, "a"]), TypeError, "new(): invalid data type 'str'"),
    (lambda: torch.tensor([b"a"]), TypeError, "new(): invalid data type 'bytes'"),
    (lambda: torch.tensor([None]), RuntimeError, "Could not infer dtype of NoneType"),
    (lambda: torch.from_numpy(np.array([2**100])), TypeError,
     f"can't convert np.ndarray of type numpy.object_. {SUPPORTED}"),
    (lambda: torch.from_numpy(np.array([1, "a"], dtype=object)), TypeError,
     f"can't convert np.ndarray of type numpy.object_. {SUPPORTED}"),
    (lambda: torch.from_numpy(np.array(["a"])), TypeError,
     f"can't convert np.ndarray of type numpy.str_. {SUPPORTED}"),
    (lambda: torch.tensor(np.array([b"a"])), TypeError,
     f"can't convert np.ndarray of type numpy.bytes_. {SUPPORTED}"),
    (lambda: torch.as_tensor(np.array([1], dtype=object)), TypeError,
     f"can't convert np.ndarray of type numpy.object_. {SUPPORTED}"),
    (lambda: torch.as_tensor(np.array(["a"])), TypeError,
     f"can't convert np.ndarray of type numpy.str_. {SUPPORTED}"),
    (lambda: torch.as_tensor(["a"]), ValueError, "too many dimensions 'str'"),
    (lambda: torch.Tensor(["a"]), ValueError, "too many dimensions 'str'"),
    (lambda: torch.Tensor(np.array([1], dtype=object)), TypeError,
     f"can't convert np.ndarray of type numpy.object_. {SUPPORTED}"),
    (lambda: _set_data("hello"), TypeError, "Variable data has to be a tensor, but got str"),
    (lambda: _set_data(np.array([1], dtype=object)), TypeError,
     "Variable data has to be a tensor, but got numpy.ndarray"),
    (lambda: _set_data(np.ones(3)), TypeError,
     "Variable data has to be a tensor, but got numpy.ndarray"),
    (lambda: _set_data([1.0, 2.0]), TypeError, "Variable data has to be a tensor, but got list"),
    (lambda: _set_grad("a"), TypeError,
     "assigned grad expected to be a Tensor or None but got grad of type str"),
    (lambda: _set_grad(np.ones(3)), TypeError,
     "assigned grad expected to be a Tensor or None but got grad of type numpy.ndarray"),
    (lambda: _set_grad(torch.ones(4)), RuntimeError,
     "attempting to assign a gradient of size '[4]' to a tensor of size '[3]'. Please ensure "
     "that the gradient and the tensor are the same size"),
    (lambda: _set_grad(torch.ones(3, dtype=torch.float64)), RuntimeError,
     "attempting to assign a gradient with dtype 'double' to a tensor with grad_dtype 'Float'."),
]


@pytest.mark.parametrize("make, exc, message", CASES)
def test_refused_as_torch(make, exc, message):
    with pytest.raises(exc) as info:
        make()
    assert type(info.value) is exc
    assert str(info.value).startswith(message)


def test_data_of_another_size_keeps_views_on_the_old_memory():
    # as PyTorch: a view taken before keeps the old storage; the base shows the new data
    y = torch.ones(3)
    v = y[1:]
    y.data = torch.ones(10)
    v.add_(1)
    assert y.tolist() == [1.0] * 10
    assert v.tolist() == [2.0, 2.0]
    assert v._base is y


def test_in_place_into_a_stale_view_is_refused():
    y = torch.ones(6, requires_grad=True).clone()
    v = y[2:]
    y.data = torch.ones(2)
    with pytest.raises(RuntimeError, match="no longer lies inside its base's memory"):
        v.mul_(2)


def test_as_tensor_of_numbers_still_shares_memory():
    a = np.arange(3.0)
    t = torch.as_tensor(a)
    a[0] = 5
    assert t.tolist() == [5.0, 1.0, 2.0]
    assert torch.tensor([np.ones(2), np.zeros(2)]).tolist() == [[1.0, 1.0], [0.0, 0.0]]


def test_with_torch_when_installed():
    # the table above was written from torch 2.13's answers: spot-check a few against it
    torch_ = pytest.importorskip("torch")
    with pytest.raises(ValueError, match="too many dimensions 'str'"):
        torch_.tensor(["a"])
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got str"):
        t = torch_.ones(3)
        t.data = "hello"
    with pytest.raises(TypeError) as info:
        torch_.from_numpy(np.array([2**100]))
    assert str(info.value) == f"can't convert np.ndarray of type numpy.object_. {SUPPORTED}"
