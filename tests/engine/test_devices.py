"""Devices as PyTorch's CPU-only build answers them: ``torch.device`` parsing, printing and
equality, ``torch.cuda`` / ``torch.backends`` / ``torch.accelerator`` queries, the default
device, ``Tensor.to`` / ``.cpu()`` / ``.cuda()`` and factories' ``device=`` (the exception type
and the whole message, as torch raises them)."""

from __future__ import annotations

import pickle

import pytest

import engine

torch = pytest.importorskip("torch")

EXPRESSIONS = [
    "torch.device('cpu')", "torch.device('cuda')", "torch.device('cuda:1')",
    "torch.device('cuda', 0)", "torch.device(type='cuda', index=2)", "torch.device('mps')",
    "torch.device(torch.device('cuda:3'))", "torch.device('cuda', index=None)",
    "str(torch.device('cuda', 2))", "str(torch.device('cpu'))",
    "torch.device('cpu').type", "torch.device('cpu').index", "torch.device('cuda:1').index",
    "torch.device('cpu') == torch.device('cpu')", "torch.device('cpu') == torch.device('cpu:0')",
    "torch.device('cpu') == 'cpu'", "torch.device('cpu') != torch.device('cuda')",
    "torch.device('cuda:0') == torch.device('cuda', 0)",
    "{torch.device('cpu'): 1}[torch.device('cpu')]", "repr(torch.device)",
    "torch.device('foo')", "torch.device('CPU')", "torch.device(' cpu')", "torch.device('cuda:x')",
    "torch.device('cuda:01')", "torch.device('cuda:-1')", "torch.device('cpu', -1)",
    "torch.device('cpu', 'x')", "torch.device(0)",
    "torch.cuda.is_available()", "torch.cuda.device_count()", "torch.cuda.is_initialized()",
    "torch.cuda.manual_seed(0)", "torch.cuda.manual_seed_all(0)", "torch.cuda.empty_cache()",
    "torch.cuda.memory_allocated()", "torch.cuda.current_device()",
    "torch.cuda.get_device_name()", "torch.cuda.synchronize()",
    "torch.backends.mps.is_available()", "torch.backends.mps.is_built()",
    "torch.backends.cudnn.is_available()", "torch.backends.cudnn.benchmark",
    "torch.backends.cudnn.deterministic", "torch.backends.cudnn.enabled",
    "torch.accelerator.is_available()", "torch.accelerator.current_accelerator()",
    "torch.accelerator.device_count()", "torch.accelerator.current_device_index()",
    "torch.get_default_device()", "torch.set_default_device('cpu')",
    "torch.ones(2).device", "torch.ones(2).device.type", "torch.ones(2).is_cuda",
    "torch.ones(2).to('cpu')", "torch.ones(2).to(torch.device('cpu'))",
    "torch.ones(2).to('cpu:0').device", "torch.ones(2).to('cpu', torch.float64)",
    "torch.ones(2).to(device='cpu', dtype=torch.int64)", "torch.ones(2).to('cpu', copy=True)",
    "torch.ones(2).to(torch.ones(1, dtype=torch.int32))", "torch.ones(2).to(torch.float16)",
    "torch.ones(2).to(None)", "torch.ones(2).to()", "torch.ones(2).cpu()",
    "torch.ones(2).cpu().device",
    "torch.ones(2).to('cuda')", "torch.ones(2).to('cuda:0')", "torch.ones(2).cuda()",
    "torch.ones(2).cuda('cuda:0')", "torch.ones(2).cuda(0)",
    "torch.ones(2).to(torch.device('cuda'))", "torch.ones(2).to(device='cuda')",
    "torch.ones(2).to('cuda', non_blocking=True)", "torch.ones(2).to('mps')",
    "torch.ones(2).to('xpu')", "torch.ones(2).to('hip')", "torch.ones(2).to('foo')",
    "torch.ones(2).to(0)", "torch.ones(2).to(torch.float64, 'cpu')",
    "torch.ones(2).to(torch.float64, torch.float64)", "torch.ones(2).to('cpu', foo=1)",
    "torch.ones(2, device='cpu')", "torch.zeros(2, device=torch.device('cpu'))",
    "torch.tensor([1.0], device='cpu')", "torch.ones(2, device='cuda')",
    "torch.zeros(2, device=torch.device('cuda'))", "torch.tensor([1.0], device='cuda')",
    "torch.arange(3, device='cuda')", "torch.randn(2, device='cuda')",
    "torch.zeros_like(torch.ones(1), device='cuda')", "torch.full((2,), 3.0, device='cuda')",
    "torch.zeros(2, device='foo')", "torch.zeros(2, device=0)",
    "torch.nn.Linear(1, 1, device='cpu')", "torch.nn.Linear(1, 1).to('cuda')",
]


def _evaluate(lib, expression):
    try:
        value = eval(expression, {"torch": lib})
    except Exception as e:
        return "raises", type(e).__name__, str(e)
    if type(value).__name__ in ("Tensor", "Parameter"):
        return "tensor", str(value.dtype), value.tolist(), repr(value.device)
    return "value", repr(value)


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_same_answer_as_cpu_torch(expression):
    assert _evaluate(engine, expression) == _evaluate(torch, expression)
    engine.set_default_device("cpu")


def test_the_usual_device_line():
    # the tutorials' idiom, both spellings
    for lib in (engine, torch):
        dev = torch.device("cuda" if lib.cuda.is_available() else "cpu")
        acc = (lib.accelerator.current_accelerator().type if lib.accelerator.is_available()
               else "cpu")
        assert (lib.ones(2).to(str(dev)) + 1).tolist() == [2.0, 2.0]
        assert acc == "cpu"


def test_default_device_cuda_makes_factories_fail():
    def run(lib):
        out = []
        lib.set_default_device("cuda")
        try:
            for make in (lambda: lib.zeros(2), lambda: lib.get_default_device(),
                         lambda: lib.tensor([1.0])):
                try:
                    make()
                    out.append(None)
                except AssertionError as e:
                    out.append(str(e))
        finally:
            lib.set_default_device("cpu")
        out.append(lib.zeros(1).tolist())
        return out

    assert run(engine) == run(torch)


def test_device_as_context_manager_and_pickle():
    with engine.device("cpu"):
        assert engine.ones(1).device == engine.device("cpu")
    d = pickle.loads(pickle.dumps(engine.device("cuda", 1)))
    assert d == engine.device("cuda:1") and repr(d) == "device(type='cuda', index=1)"


def test_to_keeps_identity_and_copy_makes_a_new_tensor():
    x = engine.ones(2, requires_grad=True)
    assert x.to("cpu") is x and x.cpu() is x and x.to(engine.float32) is x
    y = x.to("cpu", copy=True)
    assert y is not x and y.grad_fn.name() == torch.ones(1, requires_grad=True).to(
        "cpu", copy=True).grad_fn.name()
