"""``nn.ConvTranspose1d``/``ConvTranspose2d`` and ``F.conv_transpose1d``/``conv_transpose2d``
against PyTorch: the weights drawn after ``manual_seed``, outputs, gradients, the
``ConvolutionBackward0`` graph (with its ``(None, 0)`` bias edge), reprs, ``output_size`` and the
errors."""

from __future__ import annotations

import pytest

from tests.engine.differential import check

pytest.importorskip("torch")

CASES = {}


def case(f):
    CASES[f.__name__] = f
    return f


def _module_run(torch, cls, args, kwargs, input_shape, output_size=None):
    torch.manual_seed(3)
    m = getattr(torch.nn, cls)(*args, **kwargs)
    x = torch.randn(*input_shape, requires_grad=True)
    y = m(x) if output_size is None else m(x, output_size=output_size)
    y.backward(torch.linspace(-1.0, 1.0, y.numel()).reshape(y.shape))
    return (y, x.grad, m.weight, m.weight.grad, None if m.bias is None else m.bias.grad,
            repr(m), list(m.state_dict()))


_MODULES = {
    "dcgan_first": ("ConvTranspose2d", (6, 4, 4), dict(stride=1, padding=0, bias=False),
                    (2, 6, 1, 1)),
    "dcgan_up": ("ConvTranspose2d", (4, 3, 4), dict(stride=2, padding=1, bias=False),
                 (2, 4, 3, 3)),
    "output_padding": ("ConvTranspose2d", (3, 2, 3), dict(stride=2, padding=1, output_padding=1),
                       (1, 3, 4, 5)),
    "rect_dilated": ("ConvTranspose2d", (2, 4, (3, 2)),
                     dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2)), (2, 2, 3, 4)),
    "groups": ("ConvTranspose2d", (4, 6, 3), dict(groups=2, stride=2), (1, 4, 3, 3)),
    "unbatched2d": ("ConvTranspose2d", (3, 2, 2), dict(stride=2), (3, 4, 4)),
    "one_d": ("ConvTranspose1d", (3, 5, 3), dict(stride=3, padding=1, output_padding=2),
              (2, 3, 6)),
    "one_d_groups": ("ConvTranspose1d", (4, 2, 4), dict(groups=2, dilation=2), (4, 5)),
}
for _name, (_cls, _args, _kw, _shape) in _MODULES.items():
    CASES[f"module_{_name}"] = (
        lambda torch, c=_cls, a=_args, k=_kw, s=_shape: _module_run(torch, c, a, k, s))


@case
def output_size_picks_padding(torch):
    return _module_run(torch, "ConvTranspose2d", (4, 3, 3), dict(stride=2), (1, 4, 5, 5),
                       output_size=[1, 3, 12, 11])


@case
def output_size_out_of_range(torch):
    return _module_run(torch, "ConvTranspose2d", (4, 3, 3), dict(stride=2), (1, 4, 5, 5),
                       output_size=[14, 11])


@case
def output_size_wrong_length(torch):
    return _module_run(torch, "ConvTranspose2d", (4, 3, 3), dict(stride=2), (1, 4, 5, 5),
                       output_size=[12])


@case
def functional_double(torch):
    torch.manual_seed(1)
    x = torch.randn(1, 2, 3, 3, dtype=torch.float64, requires_grad=True)
    w = torch.randn(2, 3, 2, 2, dtype=torch.float64, requires_grad=True)
    b = torch.randn(3, dtype=torch.float64, requires_grad=True)
    y = torch.nn.functional.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1)
    (y * y).sum().backward()
    return y, x.grad, w.grad, b.grad


def _fn_error(torch, input_shape, weight_shape, **kw):
    x = torch.ones(*input_shape, dtype=kw.pop("dtype", torch.float32))
    fn = (torch.nn.functional.conv_transpose2d if len(weight_shape) == 4
          else torch.nn.functional.conv_transpose1d)
    return fn(x, torch.ones(*weight_shape), **kw)


_ERRORS = {
    "channels": ((1, 5, 8, 8), (4, 3, 3, 3), {}),
    "dims": ((8, 8), (4, 3, 3, 3), {}),
    "output_padding": ((1, 4, 8, 8), (4, 3, 3, 3), dict(output_padding=1)),
    "output_padding_1d": ((1, 4, 8), (4, 3, 3), dict(stride=2, output_padding=2)),
    "stride": ((1, 4, 8, 8), (4, 3, 3, 3), dict(stride=0)),
    "padding": ((1, 4, 8, 8), (4, 3, 3, 3), dict(padding=-1)),
    "groups": ((1, 4, 8, 8), (4, 3, 3, 3), dict(groups=3)),
    "dtype": ((1, 4, 8, 8), (4, 3, 3, 3), dict(dtype=None)),
    "too_small": ((1, 4, 1, 1), (4, 3, 3, 3), dict(padding=3)),
    "string_padding": ((1, 4, 8, 8), (4, 3, 3, 3), dict(padding="same")),
}
for _name, (_xs, _ws, _kw) in _ERRORS.items():
    CASES[f"error_{_name}"] = (
        lambda torch, xs=_xs, ws=_ws, kw=_kw: _fn_error(
            torch, xs, ws, **{k: (torch.float64 if k == "dtype" else v) for k, v in kw.items()}))


@case
def error_bias(torch):
    return torch.nn.functional.conv_transpose2d(torch.ones(1, 4, 8, 8), torch.ones(4, 3, 3, 3),
                                                torch.ones(2))


@case
def error_padding_mode(torch):
    return torch.nn.ConvTranspose2d(4, 3, 3, padding_mode="reflect")


@case
def module_attributes(torch):
    m = torch.nn.ConvTranspose1d(4, 2, 3, groups=2)
    return (repr(m), m.transposed, m.output_padding, tuple(m.weight.shape), m.padding_mode)


@pytest.mark.parametrize("name", sorted(CASES))
def test_conv_transpose_matches_torch(name):
    check(CASES[name], rtol=1e-4, atol=1e-5)
