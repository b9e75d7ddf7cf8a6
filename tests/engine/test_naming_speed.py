"""The naming walk's work is bounded by what changed (issue 14: the debugger walks the names at
every statement it passes).

A module walked again under the same name is not re-read: its plan (the modules and tensors it
names) is kept while every dict, key and value it was read from is the same object, so a second
walk reads each module's instance dict once to check that (once per walk, whatever the names
the module has) and builds no name. Values that name
nothing (floats, strings) cost their visit but get no name built. The names are the walk's rules
(``tests/engine/test_named_tensors.py``): these tests count the work, never the clock, and check
that a change anywhere in a module is seen.
"""

from __future__ import annotations

import gc

import pytest

import engine
from engine import naming, nn


def spelled(ns) -> list[tuple]:
    """Everything the walk says about each tensor and module, for comparing two walks."""
    w = naming.walk(ns)
    return ([(e.name, id(e.tensor), e.group, e.aliases, e.expression, e.parameter, e.buffer,
              e.alias_expressions) for e in w.tensors],
            [(name, id(m)) for name, m in w.modules],
            [(o.name, id(o.optimizer), o.aliases) for o in w.optimizers])


@pytest.fixture
def counted(monkeypatch):
    """Counts of the names built and of the module dicts read, as the walk runs."""
    counts = {"names": 0, "module_dicts": 0, "items": 0, "instance_dicts": 0}
    attr_name, item_name = naming.attr_name, naming.item_name
    module_dicts, instance_dict = naming.ENGINE.module_dicts, naming.instance_dict

    def counting_attr_name(prefix, attr):
        counts["names"] += 1
        return attr_name(prefix, attr)

    def counting_item_name(name, key):
        counts["items"] += 1
        return item_name(name, key)

    def counting_module_dicts(module):
        counts["module_dicts"] += 1
        return module_dicts(module)

    def counting_instance_dict(obj):
        counts["instance_dicts"] += 1
        return instance_dict(obj)

    monkeypatch.setattr(naming, "instance_dict", counting_instance_dict)
    monkeypatch.setattr(naming, "attr_name", counting_attr_name)
    monkeypatch.setattr(naming, "item_name", counting_item_name)
    monkeypatch.setattr(naming.ENGINE, "module_dicts", counting_module_dicts)
    naming.forget_plans()
    yield counts
    naming.forget_plans()


def _reset(counts):
    for k in counts:
        counts[k] = 0


def _model():
    return nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Sequential(nn.Linear(4, 4),
                                                                   nn.BatchNorm1d(4)))


def test_an_unchanged_model_is_walked_again_without_building_a_name(counted):
    model = _model()
    ns = {"model": model, "m": model, "x": engine.ones(2)}
    first = spelled(ns)
    assert counted["names"] > 0
    _reset(counted)
    assert spelled(ns) == first
    assert counted["names"] == 0 and counted["module_dicts"] == 0
    # checking that nothing changed reads each module's instance dict once, though the model
    # has two names
    modules = len(list(model.modules()))
    assert counted["instance_dicts"] == modules


def test_the_same_module_under_the_same_name_twice_is_read_once(counted):
    # a function's local `model` over the global `model`: what the session walks at a pause
    model = _model()
    naming.walk({"model": model})
    _reset(counted)
    w = naming._Walk(naming.ENGINE)
    w.visit("model", "model", model, 0)
    w.visit("model", "model", model, 0)
    assert counted["instance_dicts"] == len(list(model.modules()))


@pytest.mark.parametrize("change", [
    "replace a parameter", "register a parameter", "replace a submodule", "add a submodule",
    "set a buffer", "drop a parameter", "swap the parameter dict",
])
def test_a_change_anywhere_in_a_module_is_seen(counted, change):
    model = _model()
    ns = {"model": model, "m": model}  # the check made for one name must not pass the other
    spelled(ns)
    inner = model[2]
    if change == "replace a parameter":
        inner[0].weight = nn.Parameter(engine.zeros(4, 4))
    elif change == "register a parameter":
        inner[0].register_parameter("extra", nn.Parameter(engine.ones(1)))
    elif change == "replace a submodule":
        inner[1] = nn.LayerNorm(4)
    elif change == "add a submodule":
        inner.add_module("tail", nn.Linear(4, 1))
    elif change == "set a buffer":
        inner[1].running_mean = engine.full((4,), 2.0)
    elif change == "drop a parameter":
        inner[0].bias = None
    else:
        object.__setattr__(inner[0], "_parameters", dict(inner[0]._parameters))
        inner[0]._parameters["weight"] = nn.Parameter(engine.ones(4, 4))
    after = spelled(ns)
    naming.forget_plans()
    assert after == spelled(ns)  # what a first walk of the changed model says


def test_the_kept_plan_follows_a_parameter_into_its_new_name(counted):
    model = _model()
    ns = {"model": model}
    spelled(ns)
    new = nn.Parameter(engine.zeros(4, 4))
    model[2][0].weight = new
    assert naming.walk(ns).name_of(new) == "model.2.0.weight"


def test_floats_in_a_list_cost_their_visits_but_build_no_name(counted):
    t = engine.ones(2)
    naming.walk({"xs": [0.5] * 1000 + [t, "s", None, t]})
    assert counted["items"] == 2 * 2  # name and expression of the two tensor items only


def test_values_that_name_nothing_still_count_against_the_visit_budget(monkeypatch):
    t = engine.ones(2)
    ns = {"xs": [0.0] * 50, "label": "loss", "t": t}
    # xs (1) + its 50 floats + label (1) + t (1)
    monkeypatch.setattr(naming, "MAX_VISITS", 53)
    assert [e.name for e in naming.walk(ns).tensors] == ["t"]
    monkeypatch.setattr(naming, "MAX_VISITS", 52)
    assert naming.walk(ns).tensors == []


def test_a_module_walk_cut_by_the_budget_names_a_prefix_of_the_full_order(monkeypatch):
    model = _model()
    ns = {"a": engine.ones(1), "model": model, "z": engine.ones(1)}
    full = [e.name for e in naming.walk(ns).tensors]
    previous = 0
    for budget in range(1, 40):
        monkeypatch.setattr(naming, "MAX_VISITS", budget)
        got = [e.name for e in naming.walk(ns).tensors]
        assert got == full[:len(got)] and len(got) >= previous
        previous = len(got)
    assert previous == len(full)


def test_a_module_that_holds_itself_is_walked_but_not_kept(counted):
    model = _model()
    model.add_module("me", model)
    first = spelled({"model": model})
    assert id(model) not in naming._PLANS
    assert spelled({"model": model}) == first


def test_a_kept_plan_goes_with_its_module(counted):
    model = _model()
    naming.walk({"model": model})
    key = id(model)
    assert key in naming._PLANS
    del model
    gc.collect()
    assert key not in naming._PLANS


def test_other_kinds_are_walked_fresh_each_time():
    class Counting(naming.EngineKinds):
        reads = 0

        def module_dicts(self, module):
            Counting.reads += 1
            return super().module_dicts(module)

    kinds = Counting()
    model = _model()
    naming.walk({"model": model}, kinds)
    once = Counting.reads
    naming.walk({"model": model}, kinds)
    assert Counting.reads == 2 * once
