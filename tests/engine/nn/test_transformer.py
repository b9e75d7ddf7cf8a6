"""Transformer layers against torch.nn: seeded construction (so every weight is drawn in torch's
order), training mode with dropout (torch's masks), masks and causal hints, norm_first,
batch_first; ``check`` compares the output, every parameter's grad and the whole graph."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from tests.engine.differential import check
from tests.engine.nn.test_nn import same_error

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(9)
SRC = RNG.standard_normal((5, 2, 8)).astype(np.float32)
TGT = RNG.standard_normal((4, 2, 8)).astype(np.float32)


def _grad_for(t):
    return np.cos(np.arange(t.numel())).reshape(tuple(t.shape))


def snippet_of(build, call, inputs=(SRC,), train=True):
    def snippet(torch):
        torch.manual_seed(0)
        with_warnings = build(torch.nn)
        m = with_warnings
        m.train(train)
        leaves = [torch.tensor(a, requires_grad=True) for a in inputs]
        out = call(torch, m, *leaves)
        out.backward(torch.tensor(_grad_for(out), dtype=out.dtype))
        return {"out": out, "leaves": tuple(leaves), "params": dict(m.named_parameters())}

    return snippet


def encoder_layer(**kw):
    return lambda nn: nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, **kw)


def plain(torch, m, x):
    return m(x)


@pytest.mark.parametrize("kwargs", [{}, {"norm_first": True}, {"activation": "gelu"},
                                    {"dropout": 0.0, "bias": False}], ids=str)
def test_encoder_layer(kwargs):
    check(snippet_of(encoder_layer(**kwargs), plain), rtol=1e-4, atol=1e-5)


def test_encoder_layer_eval_and_batch_first():
    check(snippet_of(encoder_layer(), plain, train=False), rtol=1e-4, atol=1e-5)
    check(snippet_of(encoder_layer(batch_first=True), plain,
                     inputs=(SRC.transpose(1, 0, 2).copy(),)), rtol=1e-4, atol=1e-5)


def _causal(torch, n):
    return torch.nn.Transformer.generate_square_subsequent_mask(n)


def test_encoder_with_causal_mask_and_padding():
    def call(torch, m, x):
        pad = torch.tensor(np.array([[False] * 4 + [True], [False] * 5]))
        return m(x, mask=_causal(torch, 5), src_key_padding_mask=pad)

    def build(nn):
        return nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2,
                                     norm=nn.LayerNorm(8), enable_nested_tensor=False)

    check(snippet_of(build, call), rtol=1e-4, atol=1e-5)
    check(snippet_of(build, lambda torch, m, x: m(x, mask=_causal(torch, 5))),
          rtol=1e-4, atol=1e-5)
    check(snippet_of(build, lambda torch, m, x: m(x, mask=_causal(torch, 5), is_causal=True)),
          rtol=1e-4, atol=1e-5)


def test_decoder_layer_and_decoder():
    def layer(nn):
        return nn.TransformerDecoderLayer(8, 2, 16)

    check(snippet_of(layer, lambda torch, m, t, s: m(t, s, tgt_mask=_causal(torch, 4)),
                     inputs=(TGT, SRC)), rtol=1e-4, atol=1e-5)
    check(snippet_of(lambda nn: nn.TransformerDecoder(layer(nn), 2),
                     lambda torch, m, t, s: m(t, s, tgt_mask=_causal(torch, 4),
                                              tgt_is_causal=True), inputs=(TGT, SRC)),
          rtol=1e-4, atol=1e-5)
    check(snippet_of(lambda nn: nn.TransformerDecoderLayer(8, 2, 16, norm_first=True),
                     lambda torch, m, t, s: m(t, s), inputs=(TGT, SRC)), rtol=1e-4, atol=1e-5)


def test_full_transformer():
    def build(nn):
        return nn.Transformer(8, 2, num_encoder_layers=1, num_decoder_layers=1,
                              dim_feedforward=16)

    check(snippet_of(build, lambda torch, m, s, t: m(s, t, tgt_mask=_causal(torch, 4)),
                     inputs=(SRC, TGT)), rtol=1e-4, atol=1e-5)


def test_seeded_construction_is_bit_exact():
    torch.manual_seed(3)
    engine.manual_seed(3)
    kw = dict(num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=16)
    expected = torch.nn.Transformer(8, 2, **kw).state_dict()
    actual = engine.nn.Transformer(8, 2, **kw).state_dict()
    assert list(expected) == list(actual)
    for name in expected:
        assert np.array_equal(expected[name].numpy(), actual[name].numpy()), name


def test_square_subsequent_mask():
    expected = torch.nn.Transformer.generate_square_subsequent_mask(4)
    actual = engine.nn.Transformer.generate_square_subsequent_mask(4)
    assert np.array_equal(expected.numpy(), actual.numpy())


def test_nested_tensor_warning():
    with pytest.warns(UserWarning, match="self_attn.batch_first was not True"):
        engine.nn.TransformerEncoder(engine.nn.TransformerEncoderLayer(8, 2), 1)



@pytest.mark.parametrize("build", [
    lambda t: t.nn.TransformerEncoderLayer(8, 2, activation="tanh"),
    lambda t: t.nn.Transformer(8, 2, 1, 1, 16)(t.zeros(5, 2, 8), t.zeros(4, 3, 8)),
    lambda t: t.nn.Transformer(8, 2, 1, 1, 16)(t.zeros(5, 2, 8), t.zeros(4, 2, 6)),
    lambda t: t.nn.TransformerEncoderLayer(8, 2, 16)(t.zeros(5, 2, 6)),
], ids=range(4))
def test_errors_match_torch(build):
    same_error(build)
