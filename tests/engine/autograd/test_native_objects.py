"""engine/_native/objects.c: tensors, version counters, nodes and accumulators made as copies of a
prototype hold exactly what the Python construction writes (engine/tensor.py ``_wrap``,
engine/ops/dispatch.py ``_node_prototype``, ``AccumulateGrad.__init__``)."""

from __future__ import annotations

import sys
import weakref

import numpy as np
import pytest

import engine
from engine import _native
from engine.autograd import node as node_module
from engine.autograd.node import AccumulateGrad, Node
from engine.ops import dispatch
from engine.tensor import _STATE_SLOTS, Tensor, _python_wrap

objects = _native.objects()
needs_kernel = pytest.mark.skipif(objects is None, reason="engine/_native/objects.c not built")

_NODE_SLOTS = tuple(s for s in Node.__slots__ if s != "__weakref__")


@needs_kernel
def test_clone_copies_every_slot_as_a_new_reference():
    t = Tensor._wrap(np.ones(3, np.float32))
    t.grad_fn = marker = object()
    before = sys.getrefcount(marker)
    c = objects.clone(t)
    assert type(c) is Tensor and c is not t
    for name in _STATE_SLOTS:
        assert getattr(c, name) is getattr(t, name), name
    assert sys.getrefcount(marker) == before + 1
    del c
    assert sys.getrefcount(marker) == before


@needs_kernel
def test_clone_starts_with_no_weak_references():
    t = Tensor._wrap(np.ones(2))
    ref = weakref.ref(t)
    c = objects.clone(t)
    assert weakref.getweakrefcount(c) == 0
    del c
    assert ref() is t


@needs_kernel
def test_clone_refuses_what_is_not_all_slots():
    class WithDict:
        pass

    class Listed(list):
        __slots__ = ("a",)

    for cls in (WithDict, Listed, list, int):
        assert not objects.cloneable(cls)
    for value in (WithDict(), Listed(), [1], 5, "s"):
        with pytest.raises(TypeError, match="cannot clone"):
            objects.clone(value)
    for cls in (Tensor, Node, AccumulateGrad, type(Tensor._wrap(np.ones(1))._version)):
        assert objects.cloneable(cls)


def test_wrap_holds_what_the_python_construction_writes():
    a = np.arange(4.0, dtype=np.float32)
    made, reference = Tensor._wrap(a), _python_wrap(a)
    for name in _STATE_SLOTS:
        if name == "_version":
            continue
        assert getattr(made, name) is getattr(reference, name), name
    # each tensor has its own counter, starting at 0
    other = Tensor._wrap(a)
    assert made._version is not other._version
    assert made._version.value == other._version.value == 0
    made._version.value += 1
    assert other._version.value == 0 and Tensor._wrap(a)._version.value == 0


def _described(node):
    """A recorded node's slots as comparable plain data (other nodes by type and output_nr,
    arrays by value, version counters by value)."""
    out = {}
    for name in _NODE_SLOTS:
        v = getattr(node, name)
        if name == "next_functions":
            v = [(type(fn).__name__, nr) for fn, nr in v]
        elif name == "ans":
            v = None if v is None else v.tolist()
        elif name == "ans_counter":
            v = None if v is None else v.value
        elif name == "sequence_nr":
            v = type(v)
        out[name] = v
    return out


@pytest.mark.parametrize("build", [
    lambda w, b: w * b,  # saves both inputs
    lambda w, b: (w + b).tanh(),  # saves its result
    lambda w, b: w.sum(dim=0, keepdim=True),  # with parameters
])
def test_recorded_nodes_equal_the_prototype_made_again(build, monkeypatch):
    w = engine.tensor([1.0, 2.0], requires_grad=True)
    b = engine.tensor([3.0, 4.0], requires_grad=True)
    made = build(w, b).grad_fn
    monkeypatch.setattr(dispatch, "_new_node", dispatch._remade)  # the Python construction
    remade = build(w, b).grad_fn
    assert type(made) is type(remade)
    assert remade.sequence_nr > made.sequence_nr
    assert _described(made) == _described(remade)


def test_an_accumulator_holds_what_its_init_writes():
    leaf = engine.tensor([1.0], requires_grad=True)
    acc = leaf._grad_accumulator()
    fresh = AccumulateGrad(leaf)
    assert type(acc) is AccumulateGrad
    for name in ("variable", "_metadata", "pre_hooks", "hooks"):
        assert getattr(acc, name) is getattr(fresh, name), name
    assert node_module.new_accumulator(leaf).variable is leaf


@needs_kernel
def test_clone_holding_fills_the_two_slots_it_is_given():
    proto = _python_wrap(np.empty(0, np.float32))
    at = objects.slot_offset
    data, version = at(Tensor, "_data"), at(Tensor, "_version")
    a = np.ones(2)
    t = objects.clone_holding(proto, proto._version, data, version, a)
    assert t._data is a and t._version is not proto._version and t._version.value == 0
    assert proto._data.size == 0  # the prototype is left as it was
    with pytest.raises(TypeError, match="not a slot"):
        at(Tensor, "shape")  # a property
    for bad in ((data, data), (data, 1), (data, 10**6)):
        with pytest.raises(ValueError, match="not two slots"):
            objects.clone_holding(proto, proto._version, *bad, a)
