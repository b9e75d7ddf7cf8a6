"""torch.einsum -- the documented examples: trace, diagonal, outer product, batch matrix
multiplication (also in the sublist format with an ellipsis), batch permute, and the bilinear
form; then gradients through an einsum checked against the matmul they stand for.

Source: PyTorch documentation, "torch.einsum"
https://pytorch.org/docs/stable/generated/torch.einsum.html
License: BSD-3-Clause (pytorch/pytorch documentation)

Written for the gradstep corpus, following the page's examples in order.
Edits vs the source:
- torch.manual_seed(0) added; each example's value printed; the gradient check at the end is
  this program's.
"""
import torch

torch.manual_seed(0)

# trace
print(torch.einsum('ii', torch.randn(4, 4)))

# diagonal
print(torch.einsum('ii->i', torch.randn(4, 4)))

# outer product
x = torch.randn(5)
y = torch.randn(4)
print(torch.einsum('i,j->ij', x, y))

# batch matrix multiplication
As = torch.randn(3, 2, 5)
Bs = torch.randn(3, 5, 4)
print(torch.einsum('bij,bjk->bik', As, Bs))

# with sublist format and ellipsis
print(torch.einsum(As, [..., 0, 1], Bs, [..., 1, 2], [..., 0, 2]))

# batch permute
A = torch.randn(2, 3, 4, 5)
print(torch.einsum('...ij->...ji', A).shape)

# equivalent to torch.nn.functional.bilinear
A = torch.randn(3, 5, 4)
l = torch.randn(2, 5)
r = torch.randn(2, 4)
print(torch.einsum('bn,anm,bm->ba', l, A, r))

# gradients flow through einsum as through the product it spells
W = torch.randn(4, 3, requires_grad=True)
X = torch.randn(6, 4, requires_grad=True)
out = torch.einsum('nk,kj->nj', X, W)
print(out.grad_fn is not None, torch.allclose(out, X @ W, atol=1e-6))
out.pow(2).sum().backward()
gW, gX = W.grad.clone(), X.grad.clone()
W.grad = X.grad = None
(X @ W).pow(2).sum().backward()
print(torch.allclose(gW, W.grad, atol=1e-5), torch.allclose(gX, X.grad, atol=1e-5))
print(gW)
