"""The dockable panels of issue 6: gradient buffers, optimizer, training plots, the timeline and
predict mode.

Each is a QWidget made with ``Panel(controller, parent=None)`` from the window's
``SessionController``; the window docks them. They share one ``PanelsRecorder`` per controller
(``hub.panels_hub``) and draw only what ``engine.session.panels_model`` computes. Call
``shutdown()`` on each before the window goes away.
"""

from .buffers import GradientBufferPanel
from .optimizer import OptimizerPanel
from .plots import PlotsPanel
from .predict import PredictPanel
from .timeline import TimelinePanel
from .training import TrainingPlotsPanel

__all__ = ["GradientBufferPanel", "OptimizerPanel", "PlotsPanel", "PredictPanel",
           "TimelinePanel", "TrainingPlotsPanel"]
