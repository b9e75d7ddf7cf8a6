"""The training plots with many parameters: every parameter's curve is drawn, but only the
largest get a colour and a legend entry; the rest share one grey "N others" entry. And the x
axis counts iterations from 1, as the status bar does."""

from __future__ import annotations

import numpy as np

from app.panels.training import OTHERS, TrainingPlotsPanel
from engine.session.panels_model.training import LEGEND_ENTRIES
from tests.app.panels_support import FakeController

N_PARAMS = 30


def _legend(plot) -> list[str]:
    return [label.text for _, label in plot.getPlotItem().legend.items]


def test_many_parameters_get_a_short_legend(qtbot):
    import engine as torch
    from engine.session import panels_model as pm

    controller = FakeController("import engine as torch\n")
    plots = TrainingPlotsPanel(controller)
    qtbot.addWidget(plots, before_close_func=lambda w: w.shutdown())
    try:
        recorder = controller._gradstep_panels_hub.recorder
        recorder.backward_count = None  # the loop runs outside the scripted session
        params = {f"p{i:02d}": torch.tensor([1.0], requires_grad=True) for i in range(N_PARAMS)}
        # p29's gradient is the largest (scale 30), p00's the smallest
        scales = {name: float(i + 1) for i, name in enumerate(params)}
        opt = torch.optim.SGD(list(params.values()), lr=1e-3)
        for _ in range(4):
            opt.zero_grad()
            loss = sum((p * p).sum() * scales[n] for n, p in params.items())
            loss.backward()
            opt.step()
        plots.names = pm.names_by_id(params)
        assert plots.redraw(force=True) and plots.drawn_iterations == 4

        largest = [f"p{i:02d}" for i in range(N_PARAMS - 1, N_PARAMS - 1 - LEGEND_ENTRIES, -1)]
        assert {k[1] for k in plots.curves if k[0] == "norm"} == {*largest, OTHERS}
        others = f"{N_PARAMS - LEGEND_ENTRIES} others"
        assert _legend(plots.norm_plot) == [*largest, others]
        assert _legend(plots.loss_plot) == ["loss"]
        # every other parameter's 4 points are in the grey curve, a NaN after each
        xs, ys = (np.asarray(v) for v in (plots.curves[("norm", OTHERS)].xData,
                                          plots.curves[("norm", OTHERS)].yData))
        assert len(xs) == (N_PARAMS - LEGEND_ENTRIES) * 5 and np.isnan(ys).sum() == 22
        np.testing.assert_allclose(ys[:4], 2.0 * 1.0 * np.array(  # p00: ‖2 w‖, w shrinking
            [1.0, 1 - 2e-3, (1 - 2e-3) ** 2, (1 - 2e-3) ** 3]), rtol=1e-5)
        grey = plots.curves[("norm", OTHERS)].opts["pen"].color().name()
        assert plots.curves[("norm", largest[0])].opts["pen"].color().name() != grey

        xs = plots.curves[("loss", "loss")].getData()[0]
        np.testing.assert_array_equal(xs, [1, 2, 3, 4])  # the first backward() is iteration 1
        np.testing.assert_array_equal(plots.curves[("norm", "p29")].getData()[0], [1, 2, 3, 4])
        assert plots.status.text().startswith("4 iterations")

        # a run that changes which are largest re-ranks the legend
        scales["p00"] = 1000.0
        opt.zero_grad()
        sum((p * p).sum() * scales[n] for n, p in params.items()).backward()
        plots.redraw(force=True)
        assert _legend(plots.norm_plot)[0] == "p00"
        assert len(_legend(plots.norm_plot)) == LEGEND_ENTRIES + 1
    finally:
        controller._gradstep_panels_hub.own_recorder.detach()
