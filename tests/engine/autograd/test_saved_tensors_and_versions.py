"""Differential tests (engine vs real PyTorch, via ``tests.engine.differential.check``) for four
fidelity gaps: how ``type(x)`` prints, iterating a tensor (one UnbindBackward0 node), the version
counters of gradients (``.grad``, ``autograd.grad``'s results), and what a node saves
(``grad_fn._saved_*``, and so which in-place change breaks a backward).
"""

from __future__ import annotations

import pytest

import engine
from tests.engine.differential import check, version_of

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning")]


def _m(t, rg=True):
    return t.tensor([[1.0, 2.0], [3.0, -4.0]], requires_grad=rg)


def _v(t, rg=True):
    return t.tensor([0.5, -1.0, 2.0], requires_grad=rg)


# -- 1. type(x) prints as PyTorch's ---------------------------------------------------------------

@pytest.mark.parametrize("snippet", [
    lambda t: (str(type(t.ones(2))), repr(type(t.ones(2))), f"{type(t.ones(2))}",
               type(t.ones(2)).__name__),
    lambda t: (str(type(t.nn.Parameter(t.ones(2)))), repr(t.nn.Parameter),
               type(t.nn.Parameter(t.ones(2))).__name__),
    lambda t: (str(t.Tensor), isinstance(t.ones(1), t.Tensor),
               isinstance(t.nn.Parameter(t.ones(1)), t.Tensor), isinstance(2.0, t.Tensor),
               issubclass(t.nn.Parameter, t.Tensor), type(t.ones(1)) is t.Tensor),
], ids=["tensor", "parameter", "isinstance"])
def test_type_prints_as_torch(snippet):
    check(snippet)


def test_tensor_class_keeps_its_module_and_attributes():
    # the script interpreter's safety policy keys on __module__: it stays the engine's
    assert engine.Tensor.__module__ == "engine.tensor"
    assert engine.nn.Parameter.__module__ == "engine.nn.parameter"
    assert callable(engine.Tensor.add) and engine.Tensor._wrap is not None

    class Sub(engine.Tensor):  # a subclass made elsewhere prints as Python prints it
        __slots__ = ()

    assert repr(Sub).startswith("<class '") and "Sub" in repr(Sub)


def test_script_prints_torch_class_names_and_cannot_call_the_metaclass():
    from engine.script import Interpreter, ScriptError

    interp = Interpreter("import torch\nx = torch.ones(1)\n"
                         "print(type(x), type(torch.nn.Parameter(x)), type(x) is torch.Tensor)\n")
    interp.run()
    assert "".join(interp.output) == (
        "<class 'torch.Tensor'> <class 'torch.nn.parameter.Parameter'> True\n")
    interp = Interpreter("import torch\nM = type(type(torch.ones(1)))\nC = M('C', (), {})\n")
    with pytest.raises(ScriptError) as e:
        interp.run()
    assert e.value.kind == "forbidden"


# -- 2. iterating a tensor: one UnbindBackward0 ----------------------------------------------------

@pytest.mark.parametrize("snippet", [
    lambda t: list(_m(t)),
    lambda t: tuple(_m(t) * 1),
    lambda t: [r.grad_fn.name() for r in _m(t)] + [r.grad_fn.next_functions[0][0].name()
                                                  for r in _m(t)],
    lambda t: [(r.is_leaf, r.requires_grad, version_of(r)) for r in _m(t) * 2],
    lambda t: list(_m(t, rg=False)),
    lambda t: list(_v(t)),  # 0-d outputs
    lambda t: list(t.tensor(1.0, requires_grad=True)),
    lambda t: [r for r in t.tensor(1.0)],
    lambda t: t.zeros(0, 2, requires_grad=True).unbind(0),
    lambda t: _m(t).unbind(1),
], ids=["list", "tuple-of-op", "names", "flags", "no-grad", "vector", "0-d", "0-d-plain",
        "empty", "unbind-dim1"])
def test_iteration_graph(snippet):
    check(snippet)


def _row_sums(t):
    m = _m(t)
    total = sum(row.sum() * (i + 1) for i, row in enumerate(m))
    total.backward()
    return m, total


def _first_row_only(t):
    m = _m(t)
    a, b = m
    (a * 3).sum().backward()
    return m, a, b


def _unbind_output_order(t):
    m = _m(t)
    a, b = m * 1
    return a.grad_fn is b.grad_fn, b.grad_fn.name()


def _double_backward(t):
    m = _m(t)
    rows = list(m * m)
    (g,) = t.autograd.grad(sum(r.sum() for r in rows) * 1, m, create_graph=True)
    g.sum().backward()
    return g, m.grad


def _sum_of_tensor(t):
    v = _v(t)
    s = sum(v * 2)  # Python's sum iterates
    s.backward()
    return s, v.grad


def _no_grad_iteration(t):
    m = _m(t)
    with t.no_grad():
        rows = list(m)
    return rows


@pytest.mark.parametrize("snippet", [
    _row_sums, _first_row_only, _unbind_output_order, _double_backward, _sum_of_tensor,
    _no_grad_iteration,
], ids=lambda f: f.__name__)
def test_iteration_backward(snippet):
    check(snippet)


def _inplace_on_unbound(fn):
    def snippet(t):
        a, b = _m(t) * 1
        fn(a, b)
        # not the views themselves: PyTorch refuses to rebuild their grad_fn once their base
        # changed (an error on access the engine does not model)
        return version_of(a), a.detach().tolist(), b.detach().tolist()
    return snippet


@pytest.mark.parametrize("fn", [
    lambda a, b: b.mul_(2),
    lambda a, b: a.add_(1),
    lambda a, b: b.zero_(),
    lambda a, b: b.__iadd__(1),
    lambda a, b: b.__setitem__(0, 1.0),
    lambda a, b: b.__setitem__(slice(None), 1.0),
    lambda a, b: b.__setitem__(slice(0, 1), 1.0),
    lambda a, b: b.__setitem__(Ellipsis, 1.0),
    lambda a, b: b[0].mul_(2),
    lambda a, b: b.view(2).mul_(2),
    lambda a, b: b.t().mul_(2),
    lambda a, b: b.copy_(a),
    lambda a, b: b.detach().mul_(2),
], ids=["mul_", "add_-output0", "zero_", "iadd", "set-select", "set-full-slice", "set-slice",
        "set-ellipsis", "select-of-output", "view-of-output", "t-of-output", "copy_",
        "detach-ok"])
def test_inplace_on_unbind_output(fn):
    check(_inplace_on_unbound(fn))


def _leaf_unbound_inplace(t):
    a, b = _m(t)
    a.mul_(2)


def _no_grad_view_inplace(t):
    m = _m(t)
    with t.no_grad():
        a, b = m
    a.mul_(2)


def _inplace_under_no_grad(t):
    m = _m(t)
    a, b = m * 1
    with t.no_grad():
        a.mul_(2)
    return version_of(a), a.detach().tolist()


def _plain_rows_inplace(t):
    n = _m(t, rg=False)
    r = list(n)
    r[0].mul_(2)
    return n, version_of(n), r[0]._base is n


@pytest.mark.parametrize("snippet", [
    _leaf_unbound_inplace, _no_grad_view_inplace, _inplace_under_no_grad, _plain_rows_inplace,
], ids=lambda f: f.__name__)
def test_inplace_around_iteration(snippet):
    check(snippet)


# -- 3. version counters of gradients --------------------------------------------------------------

def _versions(t):
    V = version_of
    out = {}
    x = _v(t)
    (g,) = t.autograd.grad((x.tanh() * x).sum(), x)
    out["grad-summed"] = V(g)
    x = _v(t)
    (g,) = t.autograd.grad(x.sum(), x)
    out["grad-expanded"] = V(g)
    x = _v(t)
    (g,) = t.autograd.grad((x * 2).sum(), x, retain_graph=True)
    out["grad-single"] = V(g)
    x = _v(t)
    (g,) = t.autograd.grad((x * x).sum(), x, create_graph=True)
    out["grad-create-graph"] = V(g)
    x = _v(t)
    (g,) = t.autograd.grad(x, x, t.ones(3))
    out["grad-root"] = V(g)
    x = _v(t)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    out["bw1"] = V(x.grad)
    y.backward(retain_graph=True)
    out["bw2"] = V(x.grad)
    x.grad.zero_()
    out["zeroed"] = V(x.grad)
    y.backward(retain_graph=True)
    out["after-zero"] = V(x.grad)
    x.grad = None
    y.backward()
    out["after-none"] = V(x.grad)
    for name, make in {
        "sum": lambda x: x.sum(), "mean": lambda x: x.mean(),
        "scaled-mean": lambda x: (x * 2).mean(),
        "x+x": lambda x: (x + x).sum(), "sum+sum": lambda x: x.sum() + x.sum(),
        "two-uses": lambda x: (x * 2).sum() + (x * 3).sum(),
    }.items():
        x = _v(t)
        make(x).backward()
        out[name] = V(x.grad)
    x = _v(t)
    (x * 1).backward(t.ones(3))
    out["given-grad"] = V(x.grad)
    x = _v(t)
    x.backward(t.ones(3))
    out["leaf-root"] = V(x.grad)
    x = t.tensor(3.0, requires_grad=True)
    x.backward()
    out["0-d-leaf-root"] = V(x.grad)
    x = t.tensor(3.0, requires_grad=True)
    (x * x).backward()
    out["0-d"] = V(x.grad)
    x = _v(t)
    x.register_hook(lambda g: g * 2)
    (x * x).sum().backward()
    out["hook"] = V(x.grad)
    m = _m(t)
    m.t().sum().backward()
    out["transposed-expanded"] = V(m.grad)
    m = _m(t)
    (m.t() * 2).sum().backward()
    out["transposed"] = V(m.grad)
    m = _m(t)
    (m.view(4) * 2).sum().backward()
    out["view"] = V(m.grad)
    x = _v(t)
    (x * x).sum().backward(inputs=[x])
    out["inputs"] = V(x.grad)
    x = _v(t)
    x.sum().backward(inputs=[x])
    out["inputs-expanded"] = V(x.grad)
    x = _v(t)
    z = x * 2
    z.retain_grad()
    y = (z * z).sum()
    y.backward(retain_graph=True)
    first = z.grad
    out["retained"] = V(z.grad)
    y.backward()
    out["retained2"] = (V(z.grad), V(first), first is z.grad, first.tolist())
    xs = [t.tensor(float(v), requires_grad=True) for v in [3, -1, 2]]
    sum(v * v for v in xs).backward()
    out["0-d-list"] = [V(v.grad) for v in xs]
    return out


def test_gradient_versions():
    check(_versions)


def _create_graph_versions(t):
    x = _v(t)
    y = (x * x).sum()
    y.backward(create_graph=True)
    first = (version_of(x.grad), x.grad.grad_fn.name(), x.grad.grad_fn.next_functions[0])
    y.backward(create_graph=True)
    return first, version_of(x.grad), x.grad


def test_create_graph_grad_is_a_copy():
    check(_create_graph_versions)


def _module_versions(t):
    t.manual_seed(0)
    lin = t.nn.Linear(2, 1)
    lin(t.ones(4, 2)).sum().backward()
    out = [version_of(lin.weight.grad), version_of(lin.bias.grad)]
    opt = t.optim.SGD(lin.parameters(), lr=0.1)
    opt.zero_grad()
    lin(t.ones(4, 2)).sum().backward()
    out.append(version_of(lin.weight.grad))
    return out


def test_module_grad_versions():
    check(_module_versions)


# -- 4. saved tensors ------------------------------------------------------------------------------

_ATTRS = ["self", "other", "result", "mat1", "mat2", "vec", "tensor", "exponent", "alpha", "beta",
          "dim", "keepdim", "min", "max"]


def _saved(make):
    def snippet(t):
        x = t.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]], requires_grad=True)
        y = t.tensor([[1.0, 2.0, -1.0], [0.5, 4.0, 2.0]], requires_grad=True)
        yn = t.tensor([[1.0, 2.0, -1.0], [0.5, 4.0, 2.0]])
        m = t.tensor([[1.0, 0.5], [-2.0, 1.0], [0.0, 3.0]], requires_grad=True)
        mn = t.tensor([[1.0, 0.5], [-2.0, 1.0], [0.0, 3.0]])
        b = t.tensor([0.1, -0.2], requires_grad=True)
        v = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        named = {"x": x, "y": y, "yn": yn, "m": m, "mn": mn, "b": b, "v": v}
        fn = make(t, **named).grad_fn
        out = {}
        for a in _ATTRS:
            try:
                val = getattr(fn, "_saved_" + a)
            except AttributeError:
                continue
            if hasattr(val, "grad_fn") and hasattr(val, "shape"):
                who = [k for k, tv in named.items() if tv is val]
                if who:
                    val = who[0]
                elif val.grad_fn is fn:
                    val = ("result", val)
            out[a] = val
        return fn.name(), out
    return snippet


_SAVED_CASES = {
    "mul-scalar": lambda t, x, **k: x * 2,
    "rmul-scalar": lambda t, x, **k: 2 * x,
    "mul-float": lambda t, x, **k: x * 2.5,
    "mul-0d-tensor": lambda t, x, **k: x * t.tensor(2.0),
    "mul": lambda t, x, y, **k: x * y,
    "mul-other-no-grad": lambda t, x, yn, **k: x * yn,
    "mul-self-no-grad": lambda t, x, yn, **k: yn * x,
    "div-scalar": lambda t, x, **k: x / 2,
    "rdiv": lambda t, y, **k: 2 / y,
    "div": lambda t, x, y, **k: x / y,
    "div-other-no-grad": lambda t, x, yn, **k: x / yn,
    "div-self-no-grad": lambda t, y, yn, **k: yn / y,
    "add-scalar": lambda t, x, **k: x + 2,
    "add": lambda t, x, y, **k: x + y,
    "add-alpha": lambda t, x, y, **k: x.add(y, alpha=2),
    "sub": lambda t, x, y, **k: x - y,
    "rsub": lambda t, x, **k: 2 - x,
    "pow": lambda t, x, **k: x ** 2,
    "pow-float": lambda t, x, **k: x.pow(2.5),
    "exp": lambda t, x, **k: x.exp(),
    "log": lambda t, y, **k: y.abs().log(),
    "sqrt": lambda t, y, **k: y.abs().sqrt(),
    "sigmoid": lambda t, x, **k: x.sigmoid(),
    "tanh": lambda t, x, **k: x.tanh(),
    "relu": lambda t, x, **k: x.relu(),
    "mm": lambda t, x, m, **k: x.mm(m),
    "mm-mat2-no-grad": lambda t, x, mn, **k: x.mm(mn),
    "mm-self-no-grad": lambda t, yn, m, **k: yn.mm(m),
    "matmul": lambda t, x, m, **k: x @ m,
    "matmul-mv": lambda t, x, v, **k: x @ v,
    "dot": lambda t, v, **k: v.dot(v),
    "addmm": lambda t, x, m, b, **k: t.addmm(b, x, m),
    "sum": lambda t, x, **k: x.sum(),
    "sum-dim": lambda t, x, **k: x.sum(1),
    "mean": lambda t, x, **k: x.mean(),
    "mean-dim": lambda t, x, **k: x.mean(1, keepdim=True),
    "clamp": lambda t, x, **k: x.clamp(0, 1),
}


@pytest.mark.parametrize("name", list(_SAVED_CASES))
def test_saved_attributes(name):
    check(_saved(_SAVED_CASES[name]))


def test_saved_tensors_dict_uses_torch_names():
    x = engine.ones(2, 3, requires_grad=True)
    m = engine.ones(3, 2, requires_grad=True)
    assert set(x.mm(m).grad_fn.saved_tensors) == {"self", "mat2"}
    assert set((x * 2).grad_fn.saved_tensors) == {"other"}
    assert set((x * engine.ones(2, 3)).grad_fn.saved_tensors) == {"other"}


def _freed_saved(t):
    x = _v(t)
    y = x * x
    y.sum().backward()
    return y.grad_fn._saved_self


def test_saved_attribute_after_backward_raises():
    check(_freed_saved)


def _modified(make, which):
    def snippet(t):
        a = t.tensor([0.5, -1.0, 2.0], requires_grad=True) * 1
        w = t.tensor([2.0, 3.0, 0.5])
        w2 = t.tensor([2.0, 3.0, 0.5], requires_grad=True) * 1
        out = make(t, a, w, w2).sum()
        {"a": a, "w": w, "w2": w2}[which].mul_(2)
        out.backward()
        return out
    return snippet


@pytest.mark.parametrize("make,which", [
    (lambda t, a, w, w2: a * w, "a"),   # only w is saved: modifying a is fine
    (lambda t, a, w, w2: a * w, "w"),
    (lambda t, a, w, w2: a * w2, "a"),
    (lambda t, a, w, w2: w * a, "a"),
    (lambda t, a, w, w2: a * 2, "a"),
    (lambda t, a, w, w2: a / w, "a"),
    (lambda t, a, w, w2: a / w, "w"),
    (lambda t, a, w, w2: w / a, "a"),
    (lambda t, a, w, w2: a.view(1, 3).mm(w.view(3, 1)), "a"),
    (lambda t, a, w, w2: a.view(1, 3).mm(w.view(3, 1)), "w"),
    (lambda t, a, w, w2: w.view(1, 3).mm(a.view(3, 1)), "w"),
    (lambda t, a, w, w2: a.dot(w), "a"),
    (lambda t, a, w, w2: a.exp(), "a"),
])
def test_which_inplace_change_breaks_backward(make, which):
    check(_modified(make, which))


def _inplace_mul_saves(t):
    a = t.tensor([0.5, -1.0, 2.0], requires_grad=True) * 1
    w = t.tensor([2.0, 3.0, 0.5])
    a.mul_(w)
    fn = a.grad_fn
    saved_self = fn._saved_self
    return fn.name(), saved_self, fn._saved_other is w


def test_inplace_mul_saves_like_torch():
    check(_inplace_mul_saves)


def _higher_order_after_fewer_saves(t):
    x = _v(t)
    w = t.tensor([2.0, 3.0, 0.5], requires_grad=True)
    y = (x * w).sum() + (x / w).sum() + (x * 2).sum() + (w * 3).sum()
    (gx, gw) = t.autograd.grad(y * y, (x, w), create_graph=True)
    (gx.sum() + gw.sum()).backward()
    # values only: the second-order graphs of div's formula differ in shape (not in value)
    return [g.detach().tolist() for g in (gx, gw, x.grad, w.grad)]


def test_higher_order_with_conditional_saves():
    check(_higher_order_after_fewer_saves)
