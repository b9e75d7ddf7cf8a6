"""``no_grad`` / ``enable_grad`` / ``inference_mode`` / ``set_grad_enabled`` as PyTorch has them:
context managers and decorators (with or without parentheses), generator functions, methods,
``set_grad_enabled`` as a plain call, nesting and exceptions, ``is_inference_mode_enabled``."""

from __future__ import annotations

import pytest

import engine

torch = pytest.importorskip("torch")


def script(torch):
    out = []

    def t(label, f):
        try:
            out.append((label, f()))
        except Exception as e:
            out.append((label, "!!", type(e).__name__, str(e)))

    x = torch.ones(2, requires_grad=True)

    @torch.no_grad()
    def f1():
        return (x * 2).requires_grad, torch.is_grad_enabled()

    @torch.no_grad
    def f2():
        return (x * 2).requires_grad, torch.is_grad_enabled()

    @torch.enable_grad()
    def f3():
        return (x * 2).requires_grad

    @torch.enable_grad
    def f3b():
        return (x * 2).requires_grad

    @torch.inference_mode()
    def f4():
        return (x * 2).requires_grad, torch.is_grad_enabled(), torch.is_inference_mode_enabled()

    @torch.inference_mode
    def f5():
        return (x * 2).requires_grad

    @torch.inference_mode(False)
    def f6():
        return (x * 2).requires_grad

    @torch.set_grad_enabled(False)
    def f7():
        return (x * 2).requires_grad, torch.is_grad_enabled()

    @torch.no_grad()
    def gen():
        for _ in range(2):
            yield torch.is_grad_enabled()

    class C:
        @torch.no_grad()
        def m(self, y):
            """Doc."""
            return (y * 2).requires_grad

    t("f1", f1)
    t("f2", f2)
    t("names", lambda: (f1.__name__, f2.__name__, C.m.__doc__))
    t("f3", lambda: torch.no_grad()(f3)())
    t("f3b", lambda: torch.no_grad()(f3b)())
    t("f4", f4)
    t("f5", f5)
    t("f6", lambda: torch.no_grad()(f6)())
    t("f7", f7)
    t("after", torch.is_grad_enabled)
    t("gen", lambda: (list(gen()), torch.is_grad_enabled()))
    t("method", lambda: C().m(x))

    def ctx():
        with torch.no_grad() as a:
            r = [a, (x * 2).requires_grad, torch.is_grad_enabled()]
            with torch.enable_grad() as b:
                r += [b, (x * 2).requires_grad]
            r.append(torch.is_grad_enabled())
        return [*r, torch.is_grad_enabled()]

    def sge():
        r = []
        torch.set_grad_enabled(False)
        r.append(torch.is_grad_enabled())
        torch.set_grad_enabled(True)
        r.append(torch.is_grad_enabled())
        with torch.set_grad_enabled(False) as a:
            r += [a, torch.is_grad_enabled(), (x * 2).requires_grad]
        r.append(torch.is_grad_enabled())
        with torch.no_grad():
            with torch.set_grad_enabled(True):
                r.append((x * 2).requires_grad)
            r.append(torch.is_grad_enabled())
        return r

    def inference():
        with torch.inference_mode() as a:
            r = [a, torch.is_grad_enabled(), (x * 2).requires_grad,
                 torch.is_inference_mode_enabled()]
            with torch.inference_mode(False):
                r += [torch.is_grad_enabled(), torch.is_inference_mode_enabled()]
        return [*r, torch.is_grad_enabled(), torch.is_inference_mode_enabled()]

    def exception():
        try:
            with torch.no_grad():
                raise ValueError("boom")
        except ValueError:
            pass
        return torch.is_grad_enabled()

    t("ctx", ctx)
    t("sge", sge)
    t("inference", inference)
    t("exception", exception)
    t("sge_missing", lambda: type(torch.set_grad_enabled()))
    t("repr", lambda: repr(torch.set_grad_enabled(True)))
    t("clone", lambda: type(torch.no_grad().clone()).__name__)
    t("decorated_qualname", lambda: torch.no_grad(len).__qualname__)
    return out


def test_grad_modes_match_torch():
    expected, actual = script(torch), script(engine)
    for e, a in zip(expected, actual):
        assert a == e
    assert len(expected) == len(actual)
