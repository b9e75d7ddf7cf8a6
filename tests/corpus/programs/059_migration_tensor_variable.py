"""PyTorch 0.4.0 Migration Guide -- Tensors and Variables merged, type(), requires_grad,
zero-dimensional tensors, .item(), dtypes and tensor creation.

Source: PyTorch blog, "PyTorch 0.4.0 Migration Guide"
https://pytorch.org/blog/pytorch-0_4_0-migration-guide/

Written for the gradstep corpus, following the guide's examples in order.
Edits vs the source:
- The REPL sessions turned into a program; the CUDA lines (torch.cuda.FloatTensor, device
  "cuda:1") dropped; torch.manual_seed(0) added before random tensors.
"""
import torch
from torch.autograd import Variable

torch.manual_seed(0)
x = torch.DoubleTensor([1, 1, 1])
print(type(x))  # was torch.DoubleTensor
print(x.type())  # OK: 'torch.DoubleTensor'
print(isinstance(x, torch.DoubleTensor))  # OK: True

x = torch.ones(1)  # create a tensor with requires_grad=False (default)
print(x.requires_grad)
y = torch.ones(1)  # another tensor with requires_grad=False
z = x + y
# both inputs have requires_grad=False. so does the output
print(z.requires_grad)
# then autograd won't track this computation. let's verify!
try:
    z.backward()
except RuntimeError as e:
    print("RuntimeError:", e)

# now create a tensor with requires_grad=True
w = torch.ones(1, requires_grad=True)
print(w.requires_grad)
# add to the previous result that has require_grad=False
total = w + z
# the total sum now requires grad!
print(total.requires_grad)
# autograd can compute the gradients as well
total.backward()
print(w.grad)
# and no computation is wasted to compute gradients for x, y and z, which don't require grad
print(z.grad == x.grad == y.grad == None)

existing_tensor = torch.ones(2)
print(existing_tensor.requires_grad_())
print(existing_tensor.requires_grad)
my_tensor = torch.zeros(3, 4, requires_grad=True)
print(my_tensor.requires_grad)

print(torch.tensor(3.1416))         # create a scalar directly
print(torch.tensor(3.1416).size())  # scalar is 0-dimensional
print(torch.tensor([3]).size())     # compare to a vector of size 1
vector = torch.arange(2, 5)         # this is a vector
print(vector)
print(vector[2])                    # indexing into a vector gives a scalar
print(vector[2].item())             # .item() gives the value as a Python number
mysum = torch.tensor([2, 3]).sum()
print(mysum)
print(mysum.size())

v = Variable(torch.ones(2, 2), requires_grad=True)
print(type(v), v)
print(v.data)

x = torch.randn(3, dtype=torch.float64)
print(torch.zeros_like(x).dtype, torch.zeros_like(x, dtype=torch.int).dtype)
print(x.new_ones(2).dtype)
print(torch.randn(3, dtype=torch.float64, requires_grad=True).requires_grad)
print(torch.tensor([[1], [2], [3]], dtype=torch.half).dtype)
print(torch.tensor(1).dtype, torch.tensor(1.).dtype)
print(torch.tensor([1, 2, 3]).float().dtype)
