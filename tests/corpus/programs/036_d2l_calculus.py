"""Dive into Deep Learning, 2.4 Calculus -- the numerical limit of f(x) = 3x^2 - 4x.

Source: d2l.ai "Calculus" (PyTorch tab)
https://d2l.ai/chapter_preliminaries/calculus.html

Written for the gradstep corpus, following the section's code cells in order.
Edits vs the source:
- The d2l plotting helpers (use_svg_display, set_figsize, plot) removed: the corpus has no
  matplotlib; the plotted values (f(x) and the tangent 2x - 3 on a grid) are printed instead.
"""
import numpy as np
import torch


def f(x):
    return 3 * x ** 2 - 4 * x


for h in 10.0 ** np.arange(-1, -6, -1):
    print(f'h={h:.5f}, numerical limit={(f(1 + h) - f(1)) / h:.5f}')

x = np.arange(0, 3, 0.1)
print(np.round(f(x), 4))
print(np.round(2 * x - 3, 4))
t = torch.arange(0, 3, 0.5)
print(f(t))
