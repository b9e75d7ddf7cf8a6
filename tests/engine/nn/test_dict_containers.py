"""``nn.ModuleDict``, ``nn.ParameterList`` and ``nn.ParameterDict`` run in PyTorch and in the
engine with the same script: their dict/list API, iteration order, the names in
``named_parameters()``/``state_dict()``, their reprs and their errors."""

from __future__ import annotations

from collections import OrderedDict

import pytest

import engine

torch = pytest.importorskip("torch")


def _recorder():
    out = []

    def t(label, f):
        try:
            out.append((label, f()))
        except Exception as e:  # the error's type and text are part of what is compared
            out.append((label, "!!", type(e).__name__, str(e)))
    return out, t


def module_dict(torch):
    nn = torch.nn
    out, t = _recorder()
    torch.manual_seed(0)
    d = nn.ModuleDict({"b": nn.Linear(2, 3), "a": nn.ReLU()})
    t("keys", lambda: list(d.keys()))
    d.update([("c", nn.Linear(3, 1)), ["a", nn.Tanh()]])
    d["z"] = nn.Identity()
    t("order", lambda: list(d))
    t("items", lambda: [(k, type(v).__name__) for k, v in d.items()])
    t("values", lambda: [type(v).__name__ for v in d.values()])
    t("contains", lambda: ("c" in d, "q" in d, len(d)))
    t("names", lambda: [n for n, _ in d.named_parameters()])
    t("state", lambda: list(d.state_dict()))
    t("repr", lambda: repr(d))
    t("pop", lambda: type(d.pop("z")).__name__)
    t("pop missing", lambda: d.pop("zz"))
    t("getitem missing", lambda: d["nope"])
    t("update bad", lambda: d.update(3))
    t("update pair", lambda: d.update([("x", nn.ReLU(), 1)]))
    t("update elem", lambda: d.update([3]))
    t("set non-module", lambda: d.__setitem__("w", 3))
    t("set dotted", lambda: d.__setitem__("a.b", nn.ReLU()))
    del d["a"]
    t("after del", lambda: list(d))
    t("empty repr", lambda: repr(nn.ModuleDict()))
    outer = nn.Module()
    outer.heads = nn.ModuleDict(OrderedDict(q=nn.Linear(2, 2, bias=False), k=nn.Linear(2, 2)))
    t("nested names", lambda: list(outer.state_dict()))
    t("values equal", lambda: outer.heads["q"].weight.detach().tolist())
    t("call", lambda: d(1))
    d.clear()
    t("cleared", lambda: (len(d), repr(d)))
    return out


def parameter_list(torch):
    nn = torch.nn
    out, t = _recorder()
    torch.manual_seed(0)
    pl = nn.ParameterList([nn.Parameter(torch.randn(3)), torch.zeros(2, 4)])
    pl.append(torch.ones(1, dtype=torch.float64))
    pl.extend([nn.Parameter(torch.randn(2, 2), requires_grad=False), "text", 5])
    t("len", lambda: len(pl))
    t("types", lambda: [type(p).__name__ for p in pl])
    t("flags", lambda: [getattr(p, "requires_grad", None) for p in pl])
    t("names", lambda: [n for n, _ in pl.named_parameters()])
    t("state", lambda: list(pl.state_dict()))
    t("repr", lambda: repr(pl))
    t("negative", lambda: pl[-4].shape)
    t("slice", lambda: repr(pl[1:3]))
    t("out of range", lambda: pl[9])
    t("bad index", lambda: pl["a"])
    t("extend tensor", lambda: pl.extend(torch.ones(2)))
    t("extend number", lambda: pl.extend(3))
    pl[0] = torch.full((2,), 7.0)
    t("set", lambda: (type(pl[0]).__name__, pl[0].tolist(), pl[0].requires_grad))
    t("set out", lambda: pl.__setitem__(10, torch.ones(1)))
    t("call", lambda: pl(1))
    pl2 = nn.ParameterList()
    t("empty repr", lambda: repr(pl2))
    pl2 += [torch.ones(2)]
    t("iadd", lambda: [n for n, _ in pl2.named_parameters()])
    x = torch.ones(3)
    y = (pl[1].sum() + pl[3].sum() * 2) * x
    y.sum().backward()
    t("grad", lambda: (pl[1].grad.tolist(), y.grad_fn.name()))
    return out


def parameter_dict(torch):
    nn = torch.nn
    out, t = _recorder()
    torch.manual_seed(0)
    pd = nn.ParameterDict({"w": torch.randn(2, 3), "b": nn.Parameter(torch.zeros(3)),
                           "a": 1.5})
    t("order", lambda: list(pd))
    pd.update(OrderedDict(z=torch.ones(1), c=torch.ones(2, dtype=torch.float64)))
    pd.update([("y", torch.ones(2, 2))])
    t("keys", lambda: list(pd.keys()))
    t("items", lambda: [(k, type(v).__name__) for k, v in pd.items()])
    t("values", lambda: [getattr(v, "shape", v) for v in pd.values()])
    t("names", lambda: [n for n, _ in pd.named_parameters()])
    t("state", lambda: list(pd.state_dict()))
    t("repr", lambda: repr(pd))
    t("contains", lambda: ("w" in pd, "q" in pd, len(pd)))
    t("get", lambda: (pd.get("q", 3), type(pd.get("w")).__name__))
    t("pop", lambda: pd.pop("a"))
    t("popitem", lambda: pd.popitem()[0])
    t("setdefault", lambda: pd.setdefault("n", torch.ones(1)).requires_grad)
    t("reversed", lambda: list(reversed(pd)))
    t("copy", lambda: list(pd.copy()))
    t("or", lambda: list(pd | nn.ParameterDict({"m": torch.ones(1)})))
    t("fromkeys", lambda: list(pd.fromkeys(["p", "q"], torch.ones(1))))
    t("int key", lambda: pd[3])
    t("missing", lambda: pd["nope"])
    t("update bad", lambda: pd.update(4))
    t("update pair", lambda: pd.update([("x",)]))
    t("call", lambda: pd(1))
    del pd["w"]
    t("after del", lambda: (list(pd), [n for n, _ in pd.named_parameters()]))
    pd.clear()
    t("cleared", lambda: (len(pd), repr(pd)))
    return out


@pytest.mark.parametrize("script", [module_dict, parameter_list, parameter_dict],
                         ids=lambda s: s.__name__)
def test_dict_and_list_containers_match_torch(script):
    expected = script(torch)
    actual = script(engine)
    assert [e[0] for e in expected] == [a[0] for a in actual]
    for e, a in zip(expected, actual):
        assert e == a, e[0]
