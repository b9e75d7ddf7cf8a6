"""``matplotlib.pyplot`` inside the safe interpreter and the session (engine/plots/)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from engine.plots import describe, figures_of
from engine.plots.state import MAX_FIGURES, state_of
from engine.script import Interpreter, ScriptError, run
from engine.session import events as ev
from engine.session.session import Session


def figures(source: str):
    interp = Interpreter(source)
    gen = interp.steps()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            while True:
                next(gen)
        except StopIteration:
            pass
    state_of(interp).finish()
    return figures_of(interp)


@pytest.mark.parametrize("imports, name", [
    ("import matplotlib.pyplot as plt", "plt"),
    ("from matplotlib import pyplot as plt", "plt"),
    ("import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt", "plt"),
    ("import matplotlib.pyplot", "matplotlib.pyplot"),
    ("import matplotlib as mpl", "mpl.pyplot"),
])
def test_import_forms(imports, name):
    figs = figures(f"{imports}\n{name}.plot([1, 2, 3])\n{name}.show()\n")
    assert len(figs) == 1 and figs[0].line == imports.count("\n") + 3


def test_from_pyplot_import_names():
    (fig,) = figures("from matplotlib.pyplot import plot, show, title\nplot([1])\n"
                     "title('x')\nshow()\n")
    assert fig.axes[0].title == "x"


def test_other_matplotlib_modules_are_refused_with_a_reason():
    with pytest.raises(ScriptError) as e:
        run("import matplotlib.animation\n")
    assert e.value.kind == "forbidden" and "gradstep's matplotlib is pyplot's" in e.value.message
    with pytest.raises(ScriptError) as e:
        run("import matplotlib.pyplot as plt\nplt.fill_between([1], [2])\n")
    assert e.value.kind == "forbidden" and "matplotlib.pyplot.fill_between" in e.value.message


def test_savefig_is_refused_politely_naming_the_line():
    source = "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.savefig('loss.png')\n"
    with pytest.warns(UserWarning) as caught:
        run(source)
    (w,) = [w for w in caught if "savefig" in str(w.message)]
    assert str(w.message) == ("savefig('loss.png') on line 3 wrote nothing: gradstep scripts "
                              "cannot write files: the figure is shown in the Plots panel "
                              "instead")
    session = Session(source)
    session.continue_()
    assert session.status == "finished" and len(session.figures) == 1
    (lint,) = session.warnings
    assert lint.line == 3 and "cannot write files" in lint.message


def test_a_figure_bomb_ends_with_a_limit():
    with pytest.raises(ScriptError) as e:
        run("import matplotlib.pyplot as plt\nfor i in range(10**6):\n    plt.figure()\n")
    assert e.value.kind == "limit" and e.value.line == 3
    assert f"a run may make {MAX_FIGURES}" in e.value.message


def test_a_points_bomb_ends_with_a_limit():
    with pytest.raises(ScriptError) as e:
        run("import matplotlib.pyplot as plt\nfor i in range(100):\n"
            "    plt.plot(list(range(100000)))\n")
    assert e.value.kind == "limit" and "too many points in figure 1" in e.value.message


def test_requires_grad_tensor_raises_torchs_error_in_the_script():
    with pytest.raises(ScriptError) as e:
        run("import torch\nimport matplotlib.pyplot as plt\n"
            "w = torch.ones(3, requires_grad=True)\nplt.plot(w * 2)\n")
    assert e.value.kind == "runtime" and e.value.line == 4
    assert isinstance(e.value.__cause__, RuntimeError)
    assert str(e.value.__cause__) == ("Can't call numpy() on Tensor that requires grad. Use "
                                      "tensor.detach().numpy() instead.")


def test_script_cannot_reach_the_state_through_handles():
    with pytest.raises(ScriptError) as e:
        run("import matplotlib.pyplot as plt\nfig = plt.figure()\nfig._state\n")
    assert e.value.kind == "forbidden"
    with pytest.raises(ScriptError) as e:
        run("import matplotlib.pyplot as plt\nfig = plt.figure()\nfig.number = 3\n")
    assert e.value.kind == "forbidden"


TUTORIAL = """import torch
import matplotlib.pyplot as plt
torch.manual_seed(0)
w = torch.randn(1, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
losses = []
for i in range(20):
    loss = ((w - 3) ** 2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
plt.plot(losses, label='loss')
plt.title('Training loss')
plt.show()
plt.hist(torch.randn(200))
"""


def test_session_publishes_figures_per_run_and_reexecution_gives_the_same():
    seen = []
    session = Session(TUTORIAL, on_event=seen.append)
    session.continue_()
    changes = [e for e in seen if isinstance(e, ev.FiguresChanged)]
    assert [(c.line, len(c.figures)) for c in changes] == [(15, 1), (None, 2)]
    first = [describe(f) for f in session.figures]
    assert first[0][0].startswith("figure 1: 1 axes; line 'loss' (20 points, y from ")
    assert first[0][0].endswith("title 'Training loss'; shown at line 15")
    losses = session.namespace["losses"]
    np.testing.assert_array_equal(session.figures[0].axes[0].artists[0].y, losses)
    counts = session.figures[1].axes[0].artists[0].counts

    seen.clear()
    session.go_to(3)  # back before the plot: no figures there
    assert session.figures == () and [e.figures for e in seen
                                      if isinstance(e, ev.FiguresChanged)] == [()]
    session.restart()
    session.continue_()
    assert [describe(f) for f in session.figures] == first  # deterministic
    np.testing.assert_array_equal(session.figures[1].axes[0].artists[0].counts, counts)
