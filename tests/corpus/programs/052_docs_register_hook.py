"""torch.Tensor.register_hook -- the documentation's example (a hook doubling the gradient),
then removing the hook.

Source: PyTorch documentation, "torch.Tensor.register_hook"
https://pytorch.org/docs/stable/generated/torch.Tensor.register_hook.html

Written for the gradstep corpus, following the documentation's example.
Edits vs the source:
- The REPL session (>>> lines) turned into a program printing what the REPL displays.
- A second part (a hook on a non-leaf tensor, printing the gradient it sees) follows the
  common forum use of hooks to inspect intermediate gradients.
"""
import torch

v = torch.tensor([0., 0., 0.], requires_grad=True)
h = v.register_hook(lambda grad: grad * 2)  # double the gradient
v.backward(torch.tensor([1., 2., 3.]))
print(v.grad)

h.remove()  # removes the hook

x = torch.tensor([1., 2., 3.], requires_grad=True)
y = x * x
y.register_hook(lambda grad: print("grad of y:", grad))
z = y.sum() * 3
z.backward()
print(x.grad)
