"""Record a few training iterations of a real PyTorch model into one ``.gstep`` file.

``with engine.record.session("run.gstep", model=model, optimizer=opt) as rec:`` watches every
``backward()`` called inside the block (by wrapping ``torch.autograd.backward`` until the block
ends) and every ``opt.step()`` (through the optimizer's step post-hook). An iteration ends at
``opt.step()`` (without an optimizer: at the next backward), or when the code calls
``rec.step()``. The file keeps the graph of the last backward, with the gradients that flowed on
each edge, and per iteration the loss, the named parameters (their values as that iteration's
forward used them, before the step) with their grads, and the optimizer's state after its step:
the timeline can move through iterations without a graph per iteration.
"""

from __future__ import annotations

from ..files import Recorded, SavedState, SavedTensor
from ._torch import require_torch
from .arrays import Budget, stats, to_numpy
from .capture import DEFAULT_ROOT_NAME, Recording
from .modules import ModuleWatcher
from .writer import (
    grad_norm,
    graph_file,
    plain_number,
    save_graph_file,
    saved_optimizer,
    saved_tensors,
)

DEFAULT_ITERATION_BUDGET = (1 << 18, 3_000_000)
"""Per-array and whole-session element limits for the per-iteration tensors."""


class RecordingSession:
    """Records training iterations; use :func:`session` to make one.

    Attributes
    ----------
    path : str or os.PathLike
        Where the file is written when the block ends (even if it raised: a crash is what one
        most wants to inspect).
    losses : list of float
        The loss of each iteration, in order.
    iterations : list of SavedState
        What each finished iteration left (``loss``, named parameters and grads, optimizer).
    recorded : Recorded or None
        The graph of the last backward.
    graph_file : GraphFile or None
        What was written, once the block has ended.
    """

    def __init__(self, path, *, model=None, optimizer=None, names: dict | None = None,
                 model_prefix: str = "", optimizer_name: str = "optimizer",
                 budget: Budget | None = None, iteration_budget: Budget | None = None,
                 title: str = "") -> None:
        self._torch = require_torch()
        self.path = path
        self.model = model
        self.optimizer = optimizer
        self.names = names
        self.model_prefix = model_prefix
        self.optimizer_name = optimizer_name
        self.budget = budget
        self.iteration_budget = iteration_budget or Budget(*DEFAULT_ITERATION_BUDGET)
        self.title = title
        self.losses: list = []
        self.iterations: list[SavedState] = []
        self.recorded: Recorded | None = None
        self.graph_file = None
        self._summaries: list[dict] = []
        self._pending: dict | None = None  # the current iteration, between backward and step
        self._watcher = None
        self._step_hook = None
        self._original_backward = None
        self._in_backward = False
        self._graph_budget = Budget()
        self.extra_metadata: dict = {}  # more keys for metadata["gradstep.record"]

    # -- the block -----------------------------------------------------------------------------
    def __enter__(self) -> "RecordingSession":
        torch = self._torch
        if self.model is not None:
            self._watcher = ModuleWatcher(self.model, self.model_prefix)
        if self.optimizer is not None:
            self._step_hook = self.optimizer.register_step_post_hook(
                lambda optimizer, args, kwargs: self.step())
        self._original_backward = torch.autograd.backward
        torch.autograd.backward = self._backward_wrapper()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        torch = self._torch
        torch.autograd.backward = self._original_backward
        if self._watcher is not None:
            self._watcher.remove()
        if self._step_hook is not None:
            self._step_hook.remove()
        if self._pending is not None:
            self.step()
        if self.recorded is not None:
            self.save()

    def _backward_wrapper(self):
        original = self._original_backward

        def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
                     *args, **kwargs):
            torch = self._torch
            if self._in_backward or not isinstance(tensors, torch.Tensor) or \
                    tensors.grad_fn is None or kwargs.get("inputs") is not None:
                return original(tensors, grad_tensors, retain_graph, create_graph, *args,
                                **kwargs)
            return self._record(tensors, lambda: original(
                tensors, grad_tensors, retain_graph, create_graph, *args, **kwargs))
        return backward

    # -- recording -----------------------------------------------------------------------------
    def backward(self, loss, gradient=None, retain_graph=None) -> None:
        """Run and record ``loss.backward(gradient)`` (what the block does for any backward)."""
        self._record(loss, lambda: self._original_or_torch()(
            loss, gradient, retain_graph))

    def _original_or_torch(self):
        return self._original_backward or self._torch.autograd.backward

    def _record(self, loss, run) -> None:
        if self._pending is not None and self._ends_at_backward():
            self.step()  # without an optimizer every backward is an iteration
        recording = Recording(loss, names=self.names, model=self.model, name=DEFAULT_ROOT_NAME,
                              model_prefix=self.model_prefix)
        self._in_backward = True
        try:
            with recording.hooks(self._graph_limits()[0]) as hooks:
                run()
        finally:
            self._in_backward = False
        recording.use_trace(hooks.trace)
        # Now, before optimizer.step() changes the parameters in place. Each graph gets the whole
        # budget: only the last one is written.
        self._graph_budget = Budget(*self._graph_limits())
        self.recorded = recording.to_recorded(self._graph_budget)
        named = [e for e in recording.named if e.tensor.grad_fn is None and e.tensor.requires_grad]
        tensors, omitted, grads_omitted = saved_tensors(named, self.iteration_budget)
        loss_value = to_numpy(loss)
        tensors[self._loss_name(tensors)] = SavedTensor(loss_value, None, True)
        self._pending = {
            "tensors": tensors, "omitted": omitted, "omitted_grads": grads_omitted,
            "summary": {
                "loss": plain_number(loss_value.sum()) if loss_value.size == 1 else
                stats(loss_value),
                "grad_norms": {e.name: grad_norm(e.tensor) for e in named},
            },
            "named": named,
        }

    def _ends_at_backward(self) -> bool:
        """Whether a new backward ends the iteration still open (no optimizer steps them)."""
        return self.optimizer is None

    def _optimizers(self) -> dict:
        """The optimizers whose state each iteration saves, by name."""
        return {} if self.optimizer is None else {self.optimizer_name: self.optimizer}

    def _graph_limits(self) -> tuple[int, int]:
        budget = self.budget or Budget()
        return budget.max_array_elements, budget.max_total_elements

    def _loss_name(self, tensors: dict) -> str:
        name = DEFAULT_ROOT_NAME
        while name in tensors:
            name = "_" + name
        return name

    def step(self) -> None:
        """End the current iteration: keep its loss, grads and the optimizer's state."""
        pending, self._pending = self._pending, None
        if pending is None:
            return
        names_by_id = {id(e.tensor): e.name for e in pending["named"]}
        cut: dict[str, dict] = {}  # optimizer -> {param: state keys over the budget}
        optimizers = {name: saved_optimizer(opt, names_by_id, pending["tensors"],
                                            self.iteration_budget, cut.setdefault(name, {}))
                      for name, opt in self._optimizers().items()}
        index = len(self.iterations)
        self.iterations.append(SavedState(index, pending["tensors"], optimizers))
        summary = pending["summary"]
        self.losses.append(summary["loss"])
        # What the budget left out of this iteration, all of it: tensors, grads, optimizer state.
        self._summaries.append({**summary, "omitted": pending["omitted"],
                                "omitted_grads": pending["omitted_grads"],
                                "omitted_state": {k: v for k, v in cut.items() if v}})

    # -- writing -------------------------------------------------------------------------------
    def save(self):
        """Write the file now (the block's end does it too). Returns the GraphFile written.

        Raises
        ------
        ValueError
            Before any backward was recorded, or when the file would be too large to load.
        """
        if self.recorded is None:
            raise ValueError("nothing recorded yet: no backward() ran inside the session")
        recorded = Recorded(self.recorded.nodes, self.recorded.edges, self.recorded.leaves,
                            list(self.iterations))
        # The last iteration is not repeated as the file's ``state``: it would double the file.
        self.graph_file = graph_file(
            recorded, title=self.title,
            summary={"iterations": self._summaries,
                     "omitted_arrays": self._graph_budget.omitted
                     + self.iteration_budget.omitted, **self.extra_metadata})
        return save_graph_file(self.path, self.graph_file)


def session(path, *, model=None, optimizer=None, names: dict | None = None,
            model_prefix: str = "", optimizer_name: str = "optimizer",
            budget: Budget | None = None, iteration_budget: Budget | None = None,
            title: str = "") -> RecordingSession:
    """Record the training iterations run inside a ``with`` block into ``path``.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.gstep`` file to write when the block ends.
    model : torch.nn.Module, optional
        Names parameters by path and groups nodes by the module that made them.
    optimizer : torch.optim.Optimizer, optional
        Its ``step()`` ends an iteration; its state is saved per iteration.
    names : dict, optional
        More names (tensors, modules), e.g. ``{"x": x}``.
    model_prefix : str
        Prefix for the model's names (``"model"`` gives ``model.fc1.weight``).
    optimizer_name : str
        The optimizer's name in the saved states (a script's variable name, e.g. ``"opt"``).
    budget, iteration_budget : Budget, optional
        Array size limits for the graph and for the per-iteration tensors.
    title : str
        The file's title.

    Returns
    -------
    RecordingSession
        A context manager; ``rec.step()`` ends an iteration by hand, ``rec.backward(loss)``
        records a backward explicitly.
    """
    return RecordingSession(path, model=model, optimizer=optimizer, names=names,
                            model_prefix=model_prefix, optimizer_name=optimizer_name,
                            budget=budget,
                            iteration_budget=iteration_budget, title=title)
