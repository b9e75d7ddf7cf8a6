"""Warm-up: numpy -- fitting y = sin(x) with a third order polynomial.

Source: "Learning PyTorch with Examples", examples_tensor/polynomial_numpy
https://pytorch.org/tutorials/beginner/examples_tensor/polynomial_numpy.html

Written for the gradstep corpus, following the tutorial's program step by step.
Edits vs the source:
- np.random.randn replaced by a seeded np.random.default_rng(0) draw: the tutorial is
  unseeded, and a test needs a reproducible start (same shapes, same distribution).
- 2000 iterations -> 500 (test time); loss printed every 100 iterations instead of 100 of 2000.
"""
import numpy as np
import math

# Create random input and output data
x = np.linspace(-math.pi, math.pi, 2000)
y = np.sin(x)

# Randomly initialize weights
rng = np.random.default_rng(0)
a = rng.standard_normal()
b = rng.standard_normal()
c = rng.standard_normal()
d = rng.standard_normal()

learning_rate = 1e-6
for t in range(500):
    # Forward pass: compute predicted y
    # y = a + b x + c x^2 + d x^3
    y_pred = a + b * x + c * x ** 2 + d * x ** 3

    # Compute and print loss
    loss = np.square(y_pred - y).sum()
    if t % 100 == 99:
        print(t, loss)

    # Backprop to compute gradients of a, b, c, d with respect to loss
    grad_y_pred = 2.0 * (y_pred - y)
    grad_a = grad_y_pred.sum()
    grad_b = (grad_y_pred * x).sum()
    grad_c = (grad_y_pred * x ** 2).sum()
    grad_d = (grad_y_pred * x ** 3).sum()

    # Update weights
    a -= learning_rate * grad_a
    b -= learning_rate * grad_b
    c -= learning_rate * grad_c
    d -= learning_rate * grad_d

print(f'Result: y = {a} + {b} x + {c} x^2 + {d} x^3')
