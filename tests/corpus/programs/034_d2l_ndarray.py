"""Dive into Deep Learning, 2.1 Data Manipulation.

Source: d2l.ai "Data Manipulation" (PyTorch tab)
https://d2l.ai/chapter_preliminaries/ndarray.html

Written for the gradstep corpus, following the section's code cells in order, each result that
the notebook displays printed.
Edits vs the source:
- Notebook cells' displayed values turned into print() calls.
- torch.randn(3, 4) preceded by torch.manual_seed(0) (unseeded in the book).
- The id()-based "saving memory" cells print the comparison results (True/False), as the book.
"""
import torch

x = torch.arange(12, dtype=torch.float32)
print(x)
print(x.numel())
print(x.shape)
X = x.reshape(3, 4)
print(X)
print(torch.zeros((2, 3, 4)))
print(torch.ones((2, 3, 4)))
torch.manual_seed(0)
print(torch.randn(3, 4))
print(torch.tensor([[2, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]]))

# Indexing and Slicing
print(X[-1], X[1:3])
X[1, 2] = 17
print(X)
X[:2, :] = 12
print(X)

# Operations
print(torch.exp(x))
x = torch.tensor([1.0, 2, 4, 8])
y = torch.tensor([2, 2, 2, 2])
print(x + y, x - y, x * y, x / y, x ** y)

X = torch.arange(12, dtype=torch.float32).reshape((3, 4))
Y = torch.tensor([[2.0, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]])
print(torch.cat((X, Y), dim=0), torch.cat((X, Y), dim=1))
print(X == Y)
print(X.sum())

# Broadcasting
a = torch.arange(3).reshape((3, 1))
b = torch.arange(2).reshape((1, 2))
print(a, b)
print(a + b)

# Saving Memory
before = id(Y)
Y = Y + X
print(id(Y) == before)
Z = torch.zeros_like(Y)
print('id(Z):', id(Z) == id(Z))
Z[:] = X + Y
print('id(Z) unchanged:', id(Z) == id(Z))
before = id(X)
X += Y
print(id(X) == before)

# Conversion to Other Python Objects
A = X.numpy()
B = torch.from_numpy(A)
print(type(A), type(B))
a = torch.tensor([3.5])
print(a, a.item(), float(a), int(a))
