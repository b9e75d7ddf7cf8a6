"""``nn.Module``'s API around training, run in PyTorch and in the engine with the same script:
``state_dict`` / ``load_state_dict`` (keys, ``strict``, the ``_IncompatibleKeys`` result, the full
error texts), buffers (persistent or not), traversal, ``train``/``eval``, ``requires_grad_``,
``apply``, ``add_module``, ``zero_grad``, ``to``/``float``/``double``/``half``/``cpu``/``cuda``."""

from __future__ import annotations

import functools
import warnings

import pytest

import engine

torch = pytest.importorskip("torch")


def script(torch):
    nn = torch.nn
    out = []

    def t(label, f):
        try:
            with warnings.catch_warnings(record=True) as rec:
                warnings.simplefilter("always")
                v = f()
            out.append((label, repr(v), [str(r.message) for r in rec]))
        except Exception as e:
            out.append((label, "!!", type(e).__name__, str(e)))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 2)
            self.seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
            self.register_buffer("running", torch.zeros(2))
            self.register_buffer("tmp", torch.ones(1), persistent=False)
            self.register_buffer("nothing", None)

        def forward(self, x):
            return self.seq(self.fc(x))

    torch.manual_seed(0)
    m = Net()
    t("keys", lambda: list(m.state_dict().keys()))
    t("types", lambda: [type(v).__name__ for v in m.state_dict().values()])
    t("req", lambda: [v.requires_grad for v in m.state_dict().values()])
    t("keep", lambda: [v.requires_grad for v in m.state_dict(keep_vars=True).values()])
    t("prefix", lambda: list(m.state_dict(prefix="a.").keys()))
    t("meta", lambda: dict(m.state_dict()._metadata))
    t("named_buffers", lambda: [n for n, _ in m.named_buffers()])
    t("buffers", lambda: len(list(m.buffers())))
    t("named_buffers_norec", lambda: [n for n, _ in m.named_buffers(recurse=False)])
    t("params_norec", lambda: len(list(m.parameters(recurse=False))))
    t("named_params", lambda: [n for n, _ in m.named_parameters()])
    t("named_params_prefix", lambda: [n for n, _ in m.named_parameters(prefix="p")])
    t("modules", lambda: [type(x).__name__ for x in m.modules()])
    t("named_modules", lambda: [n for n, _ in m.named_modules()])
    t("named_modules_prefix", lambda: [n for n, _ in m.named_modules(prefix="root")])
    t("children", lambda: [type(x).__name__ for x in m.children()])
    t("named_children", lambda: [n for n, _ in m.named_children()])
    m2 = Net()
    t("load_ok", lambda: m2.load_state_dict(m.state_dict()))
    t("load_ok_str", lambda: str(m2.load_state_dict(m.state_dict())))
    sd = m.state_dict()
    sd.pop("fc.bias")
    sd["extra"] = torch.ones(1)
    sd["seq.9.weight"] = torch.ones(1)
    t("load_strict", lambda: m2.load_state_dict(sd))
    t("load_nonstrict", lambda: m2.load_state_dict(sd, strict=False))
    t("load_nonstrict_fields", lambda: tuple(m2.load_state_dict(sd, strict=False)._fields))
    sd2 = m.state_dict()
    sd2["fc.weight"] = torch.ones(5, 5)
    t("size_mismatch", lambda: m2.load_state_dict(sd2))
    t("size_mismatch_nonstrict", lambda: m2.load_state_dict(sd2, strict=False))
    t("not_mapping", lambda: m2.load_state_dict([1]))
    t("values_equal", lambda: m2.fc.weight.tolist() == m.fc.weight.tolist())
    t(
        "train_flags",
        lambda: (m.training, m.eval().training, m.seq[1].training, m.train().seq[0].training),
    )
    t("train_bad", lambda: m.train(1))
    t("rg", lambda: [p.requires_grad for p in m.requires_grad_(False).parameters()])
    t("rg2", lambda: [p.requires_grad for p in m.requires_grad_().parameters()])

    def init(mod):
        if isinstance(mod, nn.Linear):
            nn.init.constant_(mod.weight, 0.5)

    t("apply", lambda: (m.apply(init) is m, m.fc.weight.sum().item()))
    seen = []
    t("apply_order", lambda: (m.apply(lambda x: seen.append(type(x).__name__)), seen)[1])
    t(
        "add_module",
        lambda: (m.add_module("extra", nn.Tanh()), [n for n, _ in m.named_children()])[1],
    )
    t("add_module_bad", lambda: m.add_module("x.y", nn.Tanh()))
    t("add_module_bad2", lambda: m.add_module("z", 3))
    t("register_module", lambda: (m.register_module("extra2", nn.Tanh()), list(m._modules))[1])
    t("buffer_dup", lambda: m.register_buffer("fc", torch.ones(1)))
    t("buffer_bad", lambda: m.register_buffer("b2", 3))
    t("buffer_assign", lambda: (setattr(m, "running", torch.ones(2) * 3), m.running.tolist())[1])
    t("buffer_assign_bad", lambda: setattr(m, "running", 4))
    x = torch.ones(4, 3)

    def zg(stn):
        m.zero_grad()
        m(x).sum().backward()
        m.zero_grad(set_to_none=stn)
        return [None if p.grad is None else p.grad.tolist() for p in m.parameters()]

    t("zero_grad_none", lambda: zg(True))
    t("zero_grad_zero", lambda: zg(False))
    t("to_double", lambda: [v.dtype for v in m.double().state_dict().values()])
    t("to_float", lambda: [v.dtype for v in m.float().state_dict().values()])
    t("half", lambda: [v.dtype for v in m.half().state_dict().values()])
    t("to_dtype", lambda: [v.dtype for v in m.to(torch.float64).state_dict().values()])
    t(
        "to_kw",
        lambda: [v.dtype for v in m.to(device="cpu", dtype=torch.float32).state_dict().values()],
    )
    t("to_dev", lambda: m.to("cpu") is m)
    t("to_dev_obj", lambda: m.to(torch.device("cpu")) is m)
    t("to_cuda", lambda: m.to("cuda"))
    t("cuda", lambda: m.cuda())
    t("cuda0", lambda: m.cuda(0))
    t("to_int", lambda: m.to(torch.int64))
    t("to_bad", lambda: m.to("cpu", "cpu"))
    t(
        "to_tensor",
        lambda: [v.dtype for v in m.to(torch.zeros(1, dtype=torch.float64)).state_dict().values()],
    )
    t("empty_to_cuda", lambda: nn.Sequential().to("cuda"))
    t("empty_cuda", lambda: nn.Sequential().cuda())
    t("cpu", lambda: m.cpu() is m)
    p_id = id(m.fc.weight)
    t("identity_kept", lambda: (m.double(), id(m.fc.weight) == p_id)[1])
    t(
        "grad_conv",
        lambda: (
            m.float(),
            m.zero_grad(),
            m(x.float()).sum().backward(),
            m.double(),
            m.fc.weight.grad.dtype,
        )[-1],
    )
    t("get_submodule", lambda: type(m.get_submodule("seq.0")).__name__)
    t("get_parameter", lambda: tuple(m.get_parameter("seq.0.bias").shape))
    t("get_buffer", lambda: m.get_buffer("running").tolist())
    t("sd_after_delete", lambda: (delattr(m, "tmp"), list(m.state_dict()))[1])
    t("extra_state", lambda: hasattr(m, "get_extra_state"))
    t("type", lambda: [v.dtype for v in m.type(torch.float32).state_dict().values()])
    t(
        "assign",
        lambda: (
            m2.load_state_dict(m.state_dict(), assign=True),
            type(m2.fc.weight).__name__,
            m2.fc.weight.requires_grad,
        ),
    )
    s = nn.Sequential(nn.Linear(1, 1), nn.Linear(1, 1))
    t("seq_keys", lambda: list(s.state_dict()))
    sh = nn.Linear(2, 2)
    s2 = nn.Sequential(sh, sh)
    t("shared_keys", lambda: list(s2.state_dict()))
    t("shared_params", lambda: len(list(s2.parameters())))
    t("shared_named_modules", lambda: [n for n, _ in s2.named_modules()])
    t("shared_named_modules_dup", lambda: [n for n, _ in s2.named_modules(remove_duplicate=False)])
    t("ml", lambda: list(nn.ModuleList([nn.Linear(1, 1), nn.ReLU()]).state_dict()))

    return out


@functools.cache
def _results(lib):
    return script(torch if lib == "torch" else engine)


LABELS = [entry[0] for entry in _results("torch")]


@pytest.mark.parametrize("index", range(len(LABELS)), ids=LABELS)
def test_module_api_matches_torch(index):
    assert _results("engine")[index] == _results("torch")[index]


def test_extra_state_round_trips():
    def run(lib):
        class WithState(lib.nn.Linear):
            def get_extra_state(self):
                return {"count": 3}

            def set_extra_state(self, state):
                self.loaded = state

        m = WithState(2, 1)
        sd = m.state_dict()
        other = WithState(2, 1)
        result = repr(other.load_state_dict(sd))
        sd.pop("_extra_state")
        try:
            other.load_state_dict(sd)
        except RuntimeError as e:
            missing = str(e)
        plain = lib.nn.Linear(2, 1)
        try:
            plain.load_state_dict(m.state_dict())
        except RuntimeError as e:
            unexpected = str(e)
        return list(m.state_dict()), result, other.loaded, missing, unexpected

    assert run(engine) == run(torch)
