"""nn.MultiheadAttention and F.scaled_dot_product_attention -- the documented calls: sequence-first
and batch_first inputs, key_padding_mask, a causal attn_mask, averaged and per-head weights,
need_weights=False, and the same attention written out by hand.

Source: PyTorch documentation, "MultiheadAttention" and "torch.nn.functional.scaled_dot_product_attention"
https://pytorch.org/docs/stable/generated/torch.nn.MultiheadAttention.html
https://pytorch.org/docs/stable/generated/torch.nn.functional.scaled_dot_product_attention.html
License: BSD-3-Clause (pytorch/pytorch documentation)

Written for the gradstep corpus, following the pages' examples (multihead_attn(query, key,
value); the reference implementation in scaled_dot_product_attention's docstring).
Edits vs the source:
- torch.manual_seed(0) added; embed_dim 8, num_heads 2 and small sequences chosen (the pages
  leave them open); shapes and a few values printed; a backward pass added to show the grads.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

embed_dim, num_heads = 8, 2
multihead_attn = nn.MultiheadAttention(embed_dim, num_heads)
query = torch.randn(3, 2, embed_dim)  # (L, N, E)
key = torch.randn(5, 2, embed_dim)    # (S, N, E)
value = torch.randn(5, 2, embed_dim)
attn_output, attn_output_weights = multihead_attn(query, key, value)
print(attn_output.shape, attn_output_weights.shape)
print(attn_output[0])
print(attn_output_weights[0])
print(attn_output_weights.sum(-1))

# batch_first, a padding mask (True = ignore) and per-head weights
mha = nn.MultiheadAttention(embed_dim, num_heads, batch_first=True)
x = torch.randn(2, 4, embed_dim)  # (N, L, E)
key_padding_mask = torch.tensor([[False, False, False, True],
                                 [False, False, True, True]])
out, w = mha(x, x, x, key_padding_mask=key_padding_mask, average_attn_weights=False)
print(out.shape, w.shape)
print(w[1, 0])

# a causal mask: position i attends to positions <= i
causal = torch.triu(torch.ones(4, 4, dtype=torch.bool), diagonal=1)
out, w = mha(x, x, x, attn_mask=causal)
print(w[0])
out2, none = mha(x, x, x, attn_mask=causal, need_weights=False)
print(none, torch.allclose(out, out2, atol=1e-6))

out.sum().backward()
print(mha.in_proj_weight.grad.shape, mha.out_proj.weight.grad.norm() > 0)


# scaled_dot_product_attention and its reference implementation
def reference_sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                   scale=None):
    L, S = query.size(-2), key.size(-2)
    scale_factor = 1 / math.sqrt(query.size(-1)) if scale is None else scale
    attn_bias = torch.zeros(L, S, dtype=query.dtype)
    if is_causal:
        assert attn_mask is None
        temp_mask = torch.ones(L, S, dtype=torch.bool).tril(diagonal=0)
        attn_bias.masked_fill_(temp_mask.logical_not(), float("-inf"))
        attn_bias.to(query.dtype)
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            attn_bias.masked_fill_(attn_mask.logical_not(), float("-inf"))
        else:
            attn_bias = attn_mask + attn_bias
    attn_weight = query @ key.transpose(-2, -1) * scale_factor
    attn_weight += attn_bias
    attn_weight = torch.softmax(attn_weight, dim=-1)
    attn_weight = torch.dropout(attn_weight, dropout_p, train=True)
    return attn_weight @ value


q = torch.randn(2, 2, 4, 8, requires_grad=True)  # (N, heads, L, E)
k = torch.randn(2, 2, 6, 8)
v = torch.randn(2, 2, 6, 8)
fast = F.scaled_dot_product_attention(q, k, v)
slow = reference_sdpa(q, k, v)
print(fast.shape, torch.allclose(fast, slow, atol=1e-6))
qc = torch.randn(2, 2, 4, 8)
print(torch.allclose(F.scaled_dot_product_attention(qc, qc, qc, is_causal=True),
                     reference_sdpa(qc, qc, qc, is_causal=True), atol=1e-6))
fast.sum().backward()
print(q.grad[0, 0])
