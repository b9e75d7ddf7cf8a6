"""fast.ai Practical Deep Learning, lesson 3 "How does a neural net really work?" -- fitting a
quadratic to noisy points with the mean absolute error, abc.requires_grad_(), loss.backward()
and a hand-written step `abc -= abc.grad*0.01` under torch.no_grad(); then the rectified linear
unit written with torch.clip and with F.relu. The lesson's loop never zeroes abc.grad, so every
step's gradient is the sum of all the steps' so far: printed here, as the lesson shows it.

Source: fastai/course22, 04-how-does-a-neural-net-really-work.ipynb (clean version)
https://github.com/fastai/course22/blob/master/clean/04-how-does-a-neural-net-really-work.ipynb
License: Apache 2.0 (fastai/course22)

Edits vs the source: each is marked "gradstep edit" where it is made.
- `from fastai.basics import *` becomes the imports it provided here (torch, numpy as np,
  functools.partial).
- matplotlib and ipywidgets are not importable: plot_function and the @interact sliders are
  replaced by printing the plotted functions' values at five points; the sliders' MAE for
  a=b=c=1.1 is printed.
- The values of the notebook's display cells (x[:5], y[:5], loss, abc.grad) are printed.
"""
import numpy as np  # gradstep edit: what `from fastai.basics import *` provided
import torch
from functools import partial


def plot_function(f, title=None, min=-2.1, max=2.1, color='r', ylim=None):
    # gradstep edit: prints f at five points instead of plotting it
    x = torch.linspace(min, max, 5)[:, None]
    print(title, f(x).view(-1))


def f(x): return 3*x**2 + 2*x + 1

plot_function(f, "$3x^2 + 2x + 1$")

def quad(a, b, c, x): return a*x**2 + b*x + c

def mk_quad(a,b,c): return partial(quad, a,b,c)

f2 = mk_quad(3,2,1)
plot_function(f2)

def noise(x, scale): return np.random.normal(scale=scale, size=x.shape)
def add_noise(x, mult, add): return x * (1+noise(x,mult)) + noise(x,add)

np.random.seed(42)

x = torch.linspace(-2, 2, steps=20)[:,None]
y = add_noise(f(x), 0.15, 1.5)

print(x[:5],y[:5])  # gradstep edit: printed

def mae(preds, acts): return (torch.abs(preds-acts)).mean()

# gradstep edit: the slider cell at its start values a=b=c=1.1
print(f"MAE: {mae(mk_quad(1.1, 1.1, 1.1)(x), y):.2f}")

def quad_mae(params):
    f = mk_quad(*params)
    return mae(f(x), y)

print(quad_mae([1.1, 1.1, 1.1]))  # gradstep edit: printed

abc = torch.tensor([1.1,1.1,1.1])

print(abc.requires_grad_())  # gradstep edit: printed

loss = quad_mae(abc)
print(loss)  # gradstep edit: printed

loss.backward()

print(abc.grad)  # gradstep edit: printed

with torch.no_grad():
    abc -= abc.grad*0.01
    loss = quad_mae(abc)

print(f'loss={loss:.2f}')

for i in range(10):
    loss = quad_mae(abc)
    loss.backward()
    with torch.no_grad(): abc -= abc.grad*0.01
    print(f'step={i}; loss={loss:.2f}')

print(abc, abc.grad)  # gradstep edit: the accumulated gradient (never zeroed in the lesson)

def rectified_linear(m,b,x):
    y = m*x+b
    return torch.clip(y, 0.)

plot_function(partial(rectified_linear, 1,1))

import torch.nn.functional as F
def rectified_linear2(m,b,x): return F.relu(m*x+b)
plot_function(partial(rectified_linear2, 1,1))

def double_relu(m1,b1,m2,b2,x):
    return rectified_linear(m1,b1,x) + rectified_linear(m2,b2,x)

# gradstep edit: the sliders' start values
plot_function(partial(rectified_linear, 1.5, 1.5))
plot_function(partial(double_relu, -1.5, -1.5, 1.5, 1.5))
