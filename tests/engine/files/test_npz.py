"""Gradient buffers exported as .npz: leaf grads and retained grads, by the names users see."""

import warnings

import numpy as np

import engine
from engine.files.npz import export_npz, gradient_buffers


def namespace_after_backward():
    x = engine.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = engine.tensor([[0.5, -1.0]], dtype=engine.float64, requires_grad=True)
    h = x * x
    h.retain_grad()
    z = h.sum() + (w * w).sum()
    z.backward()
    unused = engine.tensor([1.0], requires_grad=True)
    return {"x": x, "w": w, "h": h, "z": z, "unused": unused, "pair": (x, 3), "_private": x,
            "n": 3, "torch": engine}


def test_leaf_and_retained_grads_are_exported_by_name():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # reading a non-retained .grad would warn
        buffers = gradient_buffers(namespace_after_backward())
    assert list(buffers) == ["x", "w", "h"]  # pair[0] is x: one tensor, one name (engine.naming)
    assert buffers["x"].tolist() == [2.0, 4.0, 6.0]
    assert buffers["h"].tolist() == [1.0, 1.0, 1.0]
    assert buffers["w"].dtype == np.float64 and buffers["w"].tolist() == [[1.0, -2.0]]


def test_module_parameters_are_named_by_path():
    nn = engine.nn
    model = nn.Module()
    model.fc1 = nn.Linear(2, 1, bias=False)
    (model.fc1(engine.ones(2)) * 3).sum().backward()
    p = engine.tensor([1.0, 1.0], requires_grad=True)
    (p * 3).sum().backward()

    class Model:  # looks like a module, is an ordinary value: never called
        def named_parameters(self):
            raise AssertionError("called a look-alike's named_parameters")

    assert list(gradient_buffers({"model": model, "fake": Model(), "cls": nn.Linear})) == [
        "model.fc1.weight"]


def test_the_npz_file_reads_back_exactly(tmp_path):
    path = tmp_path / "grads.npz"
    names = export_npz(path, namespace_after_backward())
    with np.load(path) as archive:
        assert sorted(archive.files) == sorted(names)
        assert archive["w"].dtype == np.float64
        np.testing.assert_array_equal(archive["x"], [2.0, 4.0, 6.0])


def test_a_tensor_named_file_does_not_collide_with_numpys_parameters(tmp_path):
    t = engine.tensor([2.0], requires_grad=True)
    (t * t).sum().backward()
    export_npz(tmp_path / "g.npz", {"file": t})
    with np.load(tmp_path / "g.npz") as archive:
        assert archive["file"].tolist() == [4.0]
