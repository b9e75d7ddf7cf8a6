"""``torch.autograd.functional`` (jacobian, hessian, vjp, jvp, hvp, vhp), differential against
PyTorch: values, the output structure (a Tensor or tuples, following the inputs and outputs),
create_graph, strict and the errors."""

from __future__ import annotations

import numpy as np
import pytest

from tests.engine.differential import check


def _x(torch, *shape, seed=0):
    return torch.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def _exp_reducer(x):
    return x.exp().sum(dim=1)


def _exp_adder(x, y):
    return 2 * x.exp() + 3 * y


def _pow_reducer(x):
    return x.pow(3).sum()


def _pow_adder_reducer(x, y):
    return (2 * x.pow(2) + 3 * y.pow(2)).sum()


def _two_outputs(x, y):
    return x * y, x.sin() + y


def test_jacobian_one_input():
    check(lambda torch: torch.autograd.functional.jacobian(_exp_reducer, _x(torch, 2, 2)))


def test_jacobian_two_inputs_and_tuple_outputs():
    def snippet(torch):
        F = torch.autograd.functional
        x, y = _x(torch, 2), _x(torch, 2, seed=1)
        return (F.jacobian(_exp_adder, (x, y)), F.jacobian(_two_outputs, (x, y)),
                F.jacobian(lambda a: (a * 2, a.sum()), x))

    check(snippet)


def test_jacobian_create_graph_and_vectorize():
    def snippet(torch):
        F = torch.autograd.functional
        x = _x(torch, 3).requires_grad_()
        jac = F.jacobian(lambda a: a.pow(2), x, create_graph=True)
        jac.sum().backward()
        plain = F.jacobian(lambda a: a.pow(2), x, vectorize=True)
        return jac.detach(), jac.requires_grad, x.grad, plain, plain.requires_grad

    check(snippet)


def test_jacobian_unused_input_and_strict():
    def snippet(torch):
        F = torch.autograd.functional
        x, y = _x(torch, 2), _x(torch, 2, seed=1)
        return F.jacobian(lambda a, b: a * 2, (x, y))

    check(snippet)

    def strict(torch):
        x, y = _x(torch, 2), _x(torch, 2, seed=1)
        return torch.autograd.functional.jacobian(lambda a, b: a * 2, (x, y), strict=True)

    check(strict)


def test_hessian_one_and_two_inputs():
    def snippet(torch):
        F = torch.autograd.functional
        x, y = _x(torch, 2), _x(torch, 2, seed=1)
        return F.hessian(_pow_reducer, x), F.hessian(_pow_adder_reducer, (x, y))

    check(snippet)


def test_hessian_of_a_matrix_input_and_errors():
    check(lambda torch: torch.autograd.functional.hessian(
        lambda a: (a.sin() * a).sum(), _x(torch, 2, 2)))
    check(lambda torch: torch.autograd.functional.hessian(lambda a: a * 2, _x(torch, 3)))


def test_vjp():
    def snippet(torch):
        F = torch.autograd.functional
        x = _x(torch, 4, 4)
        v = torch.ones(4)
        y, w = _x(torch, 2), _x(torch, 2, seed=1)
        return (F.vjp(_exp_reducer, x, v), F.vjp(lambda a: a.pow(2).sum(), y),
                F.vjp(_exp_adder, (y, w), torch.ones(2)))

    check(snippet)


def test_vjp_errors():
    check(lambda torch: torch.autograd.functional.vjp(lambda a: a * 2, _x(torch, 3)))
    check(lambda torch: torch.autograd.functional.vjp(lambda a: a * 2, _x(torch, 3),
                                                      torch.ones(2)))


def test_jvp():
    def snippet(torch):
        F = torch.autograd.functional
        x = _x(torch, 4, 4)
        v = torch.ones(4, 4)
        y, w = _x(torch, 2), _x(torch, 2, seed=1)
        return (F.jvp(_exp_reducer, x, v),
                F.jvp(_exp_adder, (y, w), (torch.ones(2), torch.ones(2))))

    check(snippet)


def test_hvp_and_vhp():
    def snippet(torch):
        F = torch.autograd.functional
        x = _x(torch, 2, 2)
        v = torch.ones(2, 2)
        y, w = _x(torch, 2), _x(torch, 2, seed=1)
        vs = (torch.ones(2), torch.ones(2))
        return (F.hvp(_pow_reducer, x, v), F.vhp(_pow_reducer, x, v),
                F.hvp(_pow_adder_reducer, (y, w), vs), F.vhp(_pow_adder_reducer, (y, w), vs))

    check(snippet)


def test_hvp_create_graph():
    def snippet(torch):
        F = torch.autograd.functional
        x = _x(torch, 3).requires_grad_()
        out, hv = F.hvp(_pow_reducer, x, torch.ones(3), create_graph=True)
        hv.sum().backward()
        return out.detach(), hv.detach(), hv.requires_grad, x.grad

    check(snippet)


@pytest.mark.parametrize("name", ["hvp", "vhp"])
def test_hvp_requires_a_scalar_function(name):
    check(lambda torch: getattr(torch.autograd.functional, name)(
        lambda a: a * 2, _x(torch, 3), torch.ones(3)))


def test_inputs_must_be_tensors():
    check(lambda torch: torch.autograd.functional.jacobian(lambda a: a, [1.0, 2.0]))
