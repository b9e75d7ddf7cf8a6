"""``torch.autograd.Function`` with ``ctx``, differential against PyTorch: the documentation's
LinearFunction, MulConstant, MyCube (setup_context style, double backward), the tutorial's
LegendrePolynomial3, Exp saving its result; node names, next_functions, the wrong-number-of-grads
error, ctx attributes, and that the one scheduler steps through such a node."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from tests.engine.differential import check


def _linear_function(torch):
    class LinearFunction(torch.autograd.Function):
        @staticmethod
        def forward(ctx, input, weight, bias=None):
            ctx.save_for_backward(input, weight, bias)
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        def backward(ctx, grad_output):
            input, weight, bias = ctx.saved_tensors
            grad_input = grad_weight = grad_bias = None
            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)
            return grad_input, grad_weight, grad_bias

    return LinearFunction


def _mul_constant(torch):
    class MulConstant(torch.autograd.Function):
        @staticmethod
        def forward(ctx, tensor, constant):
            ctx.constant = constant
            return tensor * constant

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.constant, None

    return MulConstant


def _my_cube(torch):
    class MyCube(torch.autograd.Function):
        @staticmethod
        def forward(x):
            result = x ** 3
            dx = 3 * x ** 2
            return result, dx

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, = inputs
            result, dx = output
            ctx.save_for_backward(x, dx)

        @staticmethod
        def backward(ctx, grad_output, grad_dx):
            x, dx = ctx.saved_tensors
            result = grad_output * dx + grad_dx * 6 * x
            return result

    return MyCube


def _legendre(torch):
    class LegendrePolynomial3(torch.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return 0.5 * (5 * input ** 3 - 3 * input)

        @staticmethod
        def backward(ctx, grad_output):
            input, = ctx.saved_tensors
            return grad_output * 1.5 * (5 * input ** 2 - 1)

    return LegendrePolynomial3


def _exp(torch):
    class Exp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, i):
            result = i.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            result, = ctx.saved_tensors
            return grad_output * result

    return Exp


def _data(torch, *shape, seed=0):
    return torch.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def test_linear_function_values_grads_and_graph():
    def snippet(torch):
        Linear = _linear_function(torch)
        x = _data(torch, 4, 3).requires_grad_()
        w = _data(torch, 2, 3, seed=1).requires_grad_()
        b = _data(torch, 2, seed=2).requires_grad_()
        y = Linear.apply(x, w, b)
        y.sum().backward()
        fn = y.grad_fn
        return (y, x.grad, w.grad, b.grad, fn.name(), type(fn).__name__,
                len(fn.next_functions), [n.name() for n, _ in fn.next_functions])

    check(snippet)


def test_linear_function_without_bias_and_partial_requires_grad():
    def snippet(torch):
        Linear = _linear_function(torch)
        x = _data(torch, 4, 3)
        w = _data(torch, 2, 3, seed=1).requires_grad_()
        y = Linear.apply(x, w)
        (y * y).sum().backward()
        return y, w.grad, x.grad, y.grad_fn.next_functions[0]

    check(snippet)


def test_mul_constant_non_tensor_argument_and_ctx_attribute():
    def snippet(torch):
        MulConstant = _mul_constant(torch)
        x = _data(torch, 3).requires_grad_()
        y = MulConstant.apply(x, 2.5)
        (y.exp()).sum().backward()
        return y, x.grad, len(y.grad_fn.next_functions), y.grad_fn.name()

    check(snippet)


def test_my_cube_setup_context_and_double_backward():
    def snippet(torch):
        MyCube = _my_cube(torch)
        x = _data(torch, 3).requires_grad_()
        result, dx = MyCube.apply(x)
        (g,) = torch.autograd.grad(result.sum(), x, create_graph=True)
        (gg,) = torch.autograd.grad(g.sum(), x)
        return result, dx, g, gg, result.grad_fn is dx.grad_fn, g.grad_fn.name()

    check(snippet)


def test_legendre_training_step():
    def snippet(torch):
        P3 = _legendre(torch)
        x = torch.linspace(-1.0, 1.0, 5)
        a = torch.tensor(0.1, requires_grad=True)
        b = torch.tensor(-0.2, requires_grad=True)
        y_pred = a + b * P3.apply(x * 0.5 + b)
        loss = (y_pred - torch.sin(x)).pow(2).sum()
        loss.backward()
        return loss, a.grad, b.grad, y_pred

    check(snippet)


def test_exp_saving_its_result_and_double_backward():
    def snippet(torch):
        Exp = _exp(torch)
        x = _data(torch, 3).requires_grad_()
        y = Exp.apply(x)
        (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
        g.sum().backward()
        return y, g, x.grad, y.grad_fn.name()

    check(snippet)


def test_saved_tensors_freed_after_backward():
    def snippet(torch):
        Exp = _exp(torch)
        x = _data(torch, 3).requires_grad_()
        y = Exp.apply(x)
        y.sum().backward()
        y.sum().backward()

    check(snippet)


def test_retain_graph_allows_a_second_backward():
    def snippet(torch):
        Exp = _exp(torch)
        x = _data(torch, 3).requires_grad_()
        y = Exp.apply(x)
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        return x.grad

    check(snippet)


@pytest.mark.parametrize("extra", [0, 2])
def test_wrong_number_of_gradients(extra):
    def snippet(torch):
        class Bad(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x * y

            @staticmethod
            def backward(ctx, g):
                return (g,) * extra if extra else g

        x = _data(torch, 3).requires_grad_()
        y = _data(torch, 3, seed=1).requires_grad_()
        Bad.apply(x, y).sum().backward()

    check(snippet)


def test_extra_trailing_nones_are_allowed():
    def snippet(torch):
        class F(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2, None, None

        x = _data(torch, 3).requires_grad_()
        F.apply(x).sum().backward()
        return x.grad

    check(snippet)


def test_multiple_outputs_materialize_missing_grads():
    def snippet(torch):
        class Two(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, a, b):
                return a * 2 + b * 3

        x = _data(torch, 3).requires_grad_()
        p, q = Two.apply(x)
        p.sum().backward()
        return p, q, x.grad, p.grad_fn is q.grad_fn, p.grad_fn.num_outputs if hasattr(
            p.grad_fn, "num_outputs") else None

    # torch's node has no num_outputs attribute; compare the rest
    def trimmed(torch):
        out = snippet(torch)
        return out[:4]

    check(trimmed)


def test_mark_non_differentiable_and_grad_mode_inside():
    def snippet(torch):
        class SortLike(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                modes.append(torch.is_grad_enabled())
                idx = torch.tensor([2, 0, 1])
                out = x[idx]
                ctx.mark_non_differentiable(idx)
                ctx.save_for_backward(idx)
                return out, idx

            @staticmethod
            def backward(ctx, g, g_idx):
                modes.append(torch.is_grad_enabled())
                (idx,) = ctx.saved_tensors
                # the inverse permutation (not an in-place write: the version PyTorch's .grad
                # then has is not modelled for a custom backward's result)
                return g[torch.tensor([1, 2, 0])] + idx.sum() * 0

        modes = []
        x = _data(torch, 3).requires_grad_()
        out, idx = SortLike.apply(x)
        (out * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
        return out, idx.requires_grad, idx.grad_fn, x.grad, modes

    check(snippet)


def test_no_input_requires_grad_records_nothing():
    def snippet(torch):
        MulConstant = _mul_constant(torch)
        x = _data(torch, 3)
        y = MulConstant.apply(x, 3.0)
        with torch.no_grad():
            z = MulConstant.apply(x.requires_grad_(), 3.0)
        return y, y.grad_fn, y.requires_grad, z.grad_fn, z.requires_grad

    check(snippet)


def test_needs_input_grad_and_ctx_is_grad_fn():
    def snippet(torch):
        seen = {}

        class F(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, y, k):
                seen["needs"] = ctx.needs_input_grad
                seen["ctx"] = ctx
                return x * y * k

            @staticmethod
            def backward(ctx, g):
                return g, g, None

        x = _data(torch, 3).requires_grad_()
        y = _data(torch, 3, seed=1)
        z = F.apply(x, y, 2)
        return seen["needs"], seen["ctx"] is z.grad_fn, z.grad_fn.next_functions[1], repr(
            z.grad_fn).split(" object")[0]

    check(snippet)


def test_invalid_gradient_shape():
    def snippet(torch):
        class F(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.sum()

            @staticmethod
            def backward(ctx, g):
                return torch.ones(2)

        x = _data(torch, 3).requires_grad_()
        F.apply(x).backward()

    check(snippet)


def test_broadcast_gradient_is_summed_down():
    def snippet(torch):
        class F(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1

            @staticmethod
            def backward(ctx, g):
                return g.expand(2, 3)

        x = _data(torch, 3).requires_grad_()
        F.apply(x).sum().backward()
        return x.grad

    check(snippet)


def test_once_differentiable_and_exports():
    from engine.autograd import function

    assert engine.autograd.Function is function.Function
    assert function.once_differentiable is not None
    assert engine.autograd.functional.jacobian is not None
    # the old home of grad/backward still works
    assert engine.autograd.functional.grad is engine.autograd.grad
    assert engine.autograd.functional.backward is engine.autograd.backward


def test_scheduler_steps_through_the_node():
    Exp = _exp(engine)
    x = engine.tensor([0.0, 1.0], requires_grad=True)
    y = Exp.apply(x) * 2
    steps = list(y.sum().backward_steps())
    names = [s.node.name() for s in steps]
    assert names == ["SumBackward0", "MulBackward0", "ExpBackward",
                     "torch::autograd::AccumulateGrad"]
    exp_step = steps[2]
    np.testing.assert_allclose(exp_step.grads_in[0], [2.0, 2.0])
    np.testing.assert_allclose(exp_step.grads_out[0], 2 * np.exp([0.0, 1.0]), rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp([0.0, 1.0]), rtol=1e-6)


def test_graph_has_no_cycle_through_saved_outputs():
    import gc
    import weakref

    Exp = _exp(engine)
    x = engine.tensor([0.0, 1.0], requires_grad=True)
    y = Exp.apply(x)
    ref = weakref.ref(y.grad_fn)
    gc.disable()
    try:
        del y
        assert ref() is None  # freed by reference counting alone
    finally:
        gc.enable()


def test_gradcheck_and_gradgradcheck():
    def snippet(torch):
        Linear = _linear_function(torch)
        Exp = _exp(torch)
        x = _data(torch, 3, 2).double().requires_grad_()
        w = _data(torch, 4, 2, seed=1).double().requires_grad_()
        return (torch.autograd.gradcheck(Linear.apply, (x, w), eps=1e-6, atol=1e-4),
                torch.autograd.gradcheck(Exp.apply, x),
                torch.autograd.gradgradcheck(Exp.apply, x))

    check(snippet)


def test_gradcheck_reports_a_wrong_backward():
    def snippet(torch):
        class Wrong(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 3

        x = _data(torch, 3).double().requires_grad_()
        quiet = torch.autograd.gradcheck(Wrong.apply, x, raise_exception=False)
        try:
            torch.autograd.gradcheck(Wrong.apply, x)
        except RuntimeError as e:
            return quiet, type(e).__name__, str(e).splitlines()[0]

    check(snippet)
