"""Warm-up: numpy -- a two-layer ReLU network trained with hand-written backprop.

Source: "Learning PyTorch with Examples" (PyTorch 1.x edition, two_layer_net_numpy)
https://pytorch.org/tutorials/beginner/pytorch_with_examples.html#warm-up-numpy

Written for the gradstep corpus, following the tutorial's program step by step.
Edits vs the source:
- np.random.randn replaced by a seeded np.random.default_rng(0) (the source is unseeded).
- Sizes N, D_in, H, D_out = 64, 1000, 100, 10 kept; 500 iterations -> 200, and the loss is
  printed every 50 iterations instead of at every one (output size).
"""
import numpy as np

# N is batch size; D_in is input dimension;
# H is hidden dimension; D_out is output dimension.
N, D_in, H, D_out = 64, 1000, 100, 10

rng = np.random.default_rng(0)
# Create random input and output data
x = rng.standard_normal((N, D_in))
y = rng.standard_normal((N, D_out))

# Randomly initialize weights
w1 = rng.standard_normal((D_in, H))
w2 = rng.standard_normal((H, D_out))

learning_rate = 1e-6
for t in range(200):
    # Forward pass: compute predicted y
    h = x.dot(w1)
    h_relu = np.maximum(h, 0)
    y_pred = h_relu.dot(w2)

    # Compute and print loss
    loss = np.square(y_pred - y).sum()
    if t % 50 == 49:
        print(t, loss)

    # Backprop to compute gradients of w1 and w2 with respect to loss
    grad_y_pred = 2.0 * (y_pred - y)
    grad_w2 = h_relu.T.dot(grad_y_pred)
    grad_h_relu = grad_y_pred.dot(w2.T)
    grad_h = grad_h_relu.copy()
    grad_h[h < 0] = 0
    grad_w1 = x.T.dot(grad_h)

    # Update weights
    w1 -= learning_rate * grad_w1
    w2 -= learning_rate * grad_w2
