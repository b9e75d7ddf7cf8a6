"""In-place writes through a view whose base's ``.data`` was replaced must never read outside an
array (issue 15's segmentation fault: the view's strides walked past the end of the new, smaller
base). Each case runs in a child process, so a crash fails the test instead of ending the suite."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests.paths import ROOT

# The reported repro: six lines, `gradstep run` exited 139.
SHRUNK_BASE = """
import engine as torch
b = torch.zeros(4000000)
v = b[1:]
b.data = b[:2]  # a Tensor: an array is refused, as by PyTorch
w = torch.ones(3999999, requires_grad=True)
v.add_(w)
"""

# The same with a view that starts inside the new base but runs past its end.
OVERHANGING_VIEW = """
import engine as torch
b = torch.zeros(100)
v = b[:50]
b.data = b[:10]
v.mul_(torch.ones(50, requires_grad=True))
"""


def run_child(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("code", [SHRUNK_BASE, OVERHANGING_VIEW], ids=["shrunk", "overhanging"])
def test_write_through_a_stale_view_is_refused_not_a_crash(code):
    done = run_child(code)
    assert done.returncode == 1, (done.returncode, done.stderr[-2000:])
    assert "RuntimeError: this view no longer lies inside its base's memory" in done.stderr


def test_the_interpreter_names_the_line_of_the_refused_write():
    done = run_child(f"""
        from engine.script import ScriptError, run
        try:
            run({SHRUNK_BASE.replace("engine as torch", "torch")!r})
        except ScriptError as e:
            print(e.kind, e.line, type(e.__cause__).__name__)
        """)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["runtime", "7", "RuntimeError"]
