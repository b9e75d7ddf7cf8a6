"""The pyplot stand-in against matplotlib's documented conventions (engine/plots/pyplot.py)."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from engine.plots import model
from engine.plots.pyplot import AxesArray, as_array, build_pyplot
from engine.plots.state import PlotState
from engine.plots.styles import parse_fmt, to_hex


class _Interp:
    """What build_pyplot reads of an interpreter: the statement running now."""

    def _current_stmt(self):
        return None


@pytest.fixture
def plt():
    state = PlotState()
    names = build_pyplot(_Interp(), state)
    names["_state"] = state
    return type("plt", (), {k: staticmethod(v) if callable(v) and not isinstance(v, type)
                            else v for k, v in names.items()})


def shown(plt):
    plt._state.finish()
    return plt._state.figures()


# -- fmt strings (matplotlib.axes.Axes.plot, "Format Strings") ---------------------------------

@pytest.mark.parametrize("fmt, expected", [
    ("r--", ("--", "", "#ff0000")),
    ("ro", ("", "o", "#ff0000")),  # a marker alone: no line
    ("o-", ("-", "o", None)),
    ("-.", ("-.", "", None)),
    (":k", (":", "", "#000000")),
    ("g^", ("", "^", "#008000")),
    ("b", (None, None, "#0000ff")),  # a whole colour spec: the default line and marker
    ("C2", (None, None, "#2ca02c")),  # a whole colour spec
    ("red", (None, None, "#ff0000")),
    ("#00ff00", (None, None, "#00ff00")),
    ("1", ("", "1", None)),  # "1" is the tri_down marker, not a grey level
    ("x:C3", (":", "x", "#d62728")),
])
def test_fmt_strings_parse_as_matplotlib(fmt, expected):
    assert parse_fmt(fmt) == expected


@pytest.mark.parametrize("fmt, why", [
    ("r--:", "two linestyle symbols"), ("oo", "two marker symbols"),
    ("rg", "two color symbols"), ("rz", "unrecognized character 'z'"),
    ("Cx", "'C' must be followed by a number"),
])
def test_bad_fmt_strings_raise_matplotlibs_value_error(fmt, why):
    with pytest.raises(ValueError) as e:
        parse_fmt(fmt)
    assert str(e.value) == f"{fmt!r} is not a valid format string ({why})"


def test_colors():
    assert to_hex("C0") == "#1f77b4" and to_hex("tab:orange") == "#ff7f0e"
    assert to_hex("0.5") == "#808080" and to_hex((1, 0, 0)) == "#ff0000"
    with pytest.raises(ValueError):
        to_hex("notacolor")


# -- plot ------------------------------------------------------------------------------------------

def test_plot_y_alone_uses_the_index_as_x_and_the_colour_cycle(plt):
    a = plt.plot([3, 1, 2])
    b = plt.plot([0, 1, 2], [1, 1, 1], "r--", label="flat")
    c = plt.plot([5, 6])
    (fig,) = shown(plt)
    lines = fig.axes[0].artists
    np.testing.assert_array_equal(lines[0].x, [0, 1, 2])
    np.testing.assert_array_equal(lines[0].y, [3, 1, 2])
    assert lines[0].color == "#1f77b4" and lines[0].linestyle == "-" and lines[0].marker == ""
    assert (lines[1].color, lines[1].linestyle, lines[1].label) == ("#ff0000", "--", "flat")
    assert lines[2].color == "#ff7f0e"  # an explicit colour does not advance the cycle
    assert all(isinstance(x, list) and len(x) == 1 for x in (a, b, c))


def test_plot_groups_and_2d_y(plt):
    lines = plt.plot([0, 1], [0, 1], "g", [0, 1], [1, 0], "b")
    assert [ln.get_color() for ln in lines] == ["#008000", "#0000ff"]
    cols = plt.plot(np.array([[1, 2], [3, 4], [5, 6]]))
    assert len(cols) == 2
    np.testing.assert_array_equal(cols[1].get_ydata(), [2, 4, 6])


def test_plot_shape_mismatch_is_matplotlibs_error(plt):
    with pytest.raises(ValueError, match=r"x and y must have same first dimension, but have "
                                         r"shapes \(3,\) and \(2,\)"):
        plt.plot([1, 2, 3], [1, 2])


def test_tensors_convert_and_requires_grad_raises_torchs_error(plt):
    t = engine.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with pytest.raises(RuntimeError) as e:
        plt.plot(t)
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as real:
        np.asarray(torch.tensor([1.0], requires_grad=True))  # what matplotlib calls
    assert str(e.value) == str(real.value)
    with pytest.raises(RuntimeError, match="Can't call numpy"):
        plt.plot([t.sum(), t.sum()])  # losses.append(loss) without .item()
    (line,) = plt.plot(t.detach() * 2)
    np.testing.assert_array_equal(line.get_ydata(), [2, 4, 6])
    np.testing.assert_array_equal(as_array([engine.tensor(1.0), 2]), [1.0, 2.0])


# -- subplots --------------------------------------------------------------------------------------

def test_subplots_shapes_as_matplotlib(plt):
    fig, ax = plt.subplots()
    assert hasattr(ax, "plot") and not isinstance(ax, AxesArray)
    fig, axes = plt.subplots(2, 1)
    assert isinstance(axes, AxesArray) and axes.shape == (2,)
    fig, axes = plt.subplots(1, 3)
    assert axes.shape == (3,) and len(list(axes)) == 3
    fig, axes = plt.subplots(2, 2)
    assert axes.shape == (2, 2) and axes[1, 0] is axes[1][0] and axes[0, 1] is axes.flat[1]
    assert axes.ravel().shape == (4,) and axes[:, 0].shape == (2,)
    (a, b), (c, d) = axes
    assert d._position == (2, 2, 4) and len(fig.axes) == 4
    fig, axes = plt.subplots(1, 1, squeeze=False)
    assert axes.shape == (1, 1)
    with pytest.raises(IndexError):
        axes[1, 0]


def test_subplot_three_digit_and_reuse(plt):
    a = plt.subplot(211)
    b = plt.subplot(2, 1, 2)
    assert plt.subplot(2, 1, 1) is a and a is not b
    with pytest.raises(ValueError, match="num must be an integer with 1 <= num <= 2"):
        plt.subplot(2, 1, 3)


# -- hist, imshow, decorations ---------------------------------------------------------------------

def test_hist_bins_are_numpy_histograms_default(plt):
    data = np.random.default_rng(0).normal(size=1000)
    n, bins, patches = plt.hist(data)
    counts, edges = np.histogram(data)  # matplotlib: rcParams['hist.bins'] = 10
    np.testing.assert_array_equal(n, counts)
    np.testing.assert_array_equal(bins, edges)
    assert len(bins) == 11 and len(patches) == 10
    n, bins, _ = plt.hist(data, bins=5, range=(-1, 1), density=True)
    np.testing.assert_allclose(n, np.histogram(data, 5, (-1, 1), density=True)[0])
    (fig,) = shown(plt)
    assert fig.axes[0].artists[0].values == 1000


def test_imshow_and_labels(plt):
    plt.figure(figsize=(4, 3))
    img = plt.imshow(np.arange(6).reshape(2, 3), cmap="gray")
    plt.title("t")
    plt.xlabel("x")
    plt.ylabel("y")
    plt.colorbar()
    plt.axis("off")
    (fig,) = shown(plt)
    ax = fig.axes[0]
    art = ax.artists[0]
    assert isinstance(art, model.Image) and art.cmap == "gray" and art.array.shape == (2, 3)
    assert (ax.title, ax.xlabel, ax.ylabel, ax.colorbar, ax.axis_on) == ("t", "x", "y", True,
                                                                         False)
    assert fig.size == (4.0, 3.0) and img.get_array().shape == (2, 3)
    with pytest.raises(TypeError, match="Invalid shape"):
        plt.imshow(np.zeros((2, 3, 5)))


def test_show_closes_figures_and_numbers_restart(plt):
    plt.plot([1, 2])
    plt.show()
    assert plt.get_fignums() == []
    plt.figure()
    plt.plot([1])
    figs = shown(plt)
    assert [f.number for f in figs] == [1, 1] and [f.uid for f in figs] == [1, 2]


def test_savefig_warns_and_shows(plt):
    plt.plot([1, 2])
    with pytest.warns(UserWarning, match="gradstep scripts cannot write files: the figure is "
                                         "shown in the Plots panel instead"):
        plt.savefig("out.png")
    assert len(plt._state.figures()) == 1  # shown without a show()


def test_clf_close_and_legend(plt):
    plt.plot([1, 2], label="a")
    plt.clf()
    plt.plot([1, 2], label="b")
    plt.legend()
    plt.figure()
    plt.plot([3])
    plt.close()
    (fig,) = shown(plt)
    ax = fig.axes[0]
    assert [a.label for a in ax.artists] == ["b"] and ax.legend


def test_describe():
    fig = model.Figure(1, 1, (model.Axes(
        (model.Line(np.linspace(0.69, 0.01, 100), np.linspace(0.69, 0.01, 100), "loss"),),
        title="Training loss"),), line=12)
    assert model.describe(fig) == ["figure 1: 1 axes; line 'loss' (100 points, y from 0.69 to "
                                   "0.01); title 'Training loss'; shown at line 12"]
