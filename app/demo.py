"""The seed demo the window opens on without a file: x*x + 1, retain_grad, sum, backward."""

from __future__ import annotations

from .icons import EXAMPLES

DEMO_EXAMPLE = EXAMPLES / "01_what_is_a_leaf.gstep"

# Used when the example file is not there (a trimmed install): the same script as seed 002.
DEMO_SOURCE = '''# gradients.py

import numpy as np
import torch as T

x = np.array([1, 2, 3], dtype=np.float32)
t1 = T.tensor(x, dtype=T.float32, requires_grad=True)
t2 = t1 * t1 + 1
t2.retain_grad()  # leaf
z = t2.sum()

print("\\nExecuting backward()")
z.backward()

print(t1.grad)
print(t2.grad)
'''
DEMO_BREAKPOINTS = (13,)


def demo_graph_file():
    """The demo as a GraphFile: the bundled example if present, else the script above."""
    from engine.files import GraphFile, GraphFileError, load
    from engine.files.format import Breakpoint

    try:
        return load(DEMO_EXAMPLE)
    except (GraphFileError, OSError):
        return GraphFile(script=DEMO_SOURCE, title="What is a leaf?",
                         breakpoints=[Breakpoint(line) for line in DEMO_BREAKPOINTS])
