"""Trying to backward through the graph a second time -- the error, and retain_graph=True.

Source: PyTorch Forums, "RuntimeError: Trying to backward through the graph a second time,
but the buffers have already been freed. Specify retain_graph=True when calling backward the
first time"
https://discuss.pytorch.org/t/runtimeerror-trying-to-backward-through-the-graph-a-second-time-but-the-buffers-have-already-been-freed-specify-retain-graph-true-when-calling-backward-the-first-time/6795

Written for the gradstep corpus, reproducing the thread's situation and its answer ("all but
the last call to backward should have the retain_graph=True option").
Edits vs the source:
- The thread's model replaced by a minimal graph (y = x.exp() * w, summed); the error message
  printed instead of the traceback.
"""
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([0.5, -1.0], requires_grad=True)
loss = (x.exp() * w).sum()
loss.backward()
print(x.grad, w.grad)
try:
    loss.backward()
except RuntimeError as e:
    print("RuntimeError:", e)

x.grad = None
w.grad = None
loss = (x.exp() * w).sum()
loss.backward(retain_graph=True)
loss.backward()
print(x.grad, w.grad)
