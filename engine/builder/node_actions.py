"""The graph's context menu for one tensor: each action, whether PyTorch allows it, and its line.

Where PyTorch would refuse (``.item()`` of 3 elements, ``retain_grad`` without grad, ``backward``
of a tensor outside any graph), the action is disabled with PyTorch's own message, found by
running the same call on a zero-filled stand-in in the engine. Actions that PyTorch allows but
that would change nothing (``retain_grad`` on a leaf) are disabled with a plain reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..creation import ones_like, zeros
from .check import DryTensors, dry_run_context, error_text
from .edits import BuildError, CodeEdit, append_statement, torch_import
from .names import name_problem, suggest_name


@dataclass(frozen=True)
class NodeAction:
    id: str
    title: str
    enabled: bool
    reason: str | None  # why it is disabled (None when enabled)
    code: str  # the line it writes (shown as a preview, also when disabled)


ACTION_IDS = ("retain_grad", "backward", "backward_ones", "detach", "item", "tolist",
              "requires_grad_", "print_grad")


def _engine_refusal(workspace, name: str, call) -> str | None:
    """PyTorch's message when ``call(stand_in)`` raises in the engine, else None."""
    dry = DryTensors(workspace)
    with dry_run_context():
        try:
            call(dry.get(name))
        except Exception as e:
            return error_text(e)
    return None


def _detached_name(tensor_name: str, workspace) -> str:
    stem = re.sub(r"\W+", "_", tensor_name).strip("_") or "t"
    if stem[0].isdigit():
        stem = "t_" + stem
    return suggest_name(f"{stem}_detached", workspace)


def _retain_grad(info, workspace) -> tuple[bool, str | None]:
    refusal = _engine_refusal(workspace, info.name, lambda t: t.retain_grad())
    if refusal:
        return False, refusal
    if info.is_leaf:
        return False, f"{info.name} is a leaf: backward() keeps its .grad anyway"
    if info.retains_grad:
        return False, f"{info.name} already retains its grad"
    return True, None


def _backward(info, workspace, gradient: bool) -> tuple[bool, str | None]:
    def call(t):
        t.backward(gradient=ones_like(t) if gradient else None)

    refusal = _engine_refusal(workspace, info.name, call)
    if refusal is None and info.graph_freed:
        refusal = _second_backward_refusal()
    return (False, refusal) if refusal else (True, None)


def _second_backward_refusal() -> str | None:
    """PyTorch's message for a backward through a graph an earlier backward() freed."""
    with dry_run_context():
        root = (zeros(1, requires_grad=True) * 2).sum()
        root.backward()
        try:
            root.backward()
        except Exception as e:
            return error_text(e)
    return None


def _requires_grad(info, workspace) -> tuple[bool, str | None]:
    if not info.is_leaf:
        return False, (f"{info.name} is computed by {info.grad_fn}: "
                       "it requires grad through its inputs")
    refusal = _engine_refusal(workspace, info.name, lambda t: t.requires_grad_())
    if refusal:
        return False, refusal
    if info.requires_grad:
        return False, f"{info.name} already requires grad"
    return True, None


def _print_grad(info) -> tuple[bool, str | None]:
    if not info.requires_grad:
        return False, f"{info.name} does not require grad: its .grad is always None"
    if not info.is_leaf and not info.retains_grad:
        return False, (f"{info.name} is not a leaf and does not retain its grad: its .grad stays "
                       "None (retain_grad() first)")
    return True, None


def node_actions(workspace, tensor_name: str, source: str) -> list[NodeAction]:
    """The context-menu actions for ``tensor_name``, in menu order."""
    info = workspace.tensors.get(tensor_name)
    if info is None:
        return []
    n = info.name
    torch, _ = torch_import(source)
    actions = []

    ok, why = _retain_grad(info, workspace)
    actions.append(NodeAction("retain_grad", "Retain grad", ok, why, f"{n}.retain_grad()"))
    if info.numel == 1:
        ok, why = _backward(info, workspace, gradient=False)
        actions.append(NodeAction("backward", "Backward", ok, why, f"{n}.backward()"))
    else:
        ok, why = _backward(info, workspace, gradient=True)
        actions.append(NodeAction("backward_ones", "Backward with ones", ok, why,
                                  f"{n}.backward(gradient={torch}.ones_like({n}))"))
    detached = _detached_name(n, workspace)
    actions.append(NodeAction("detach", "Detach into a new name", True, None,
                              f"{detached} = {n}.detach()"))
    refusal = _engine_refusal(workspace, n, lambda t: t.item())
    actions.append(NodeAction("item", "Print value (.item())", refusal is None, refusal,
                              f"print({n}.item())"))
    actions.append(NodeAction("tolist", "Print values (.tolist())", True, None,
                              f"print({n}.tolist())"))
    ok, why = _requires_grad(info, workspace)
    actions.append(NodeAction("requires_grad_", "Require grad", ok, why, f"{n}.requires_grad_()"))
    ok, why = _print_grad(info)
    actions.append(NodeAction("print_grad", "Print grad", ok, why, f"print({n}.grad)"))
    return actions


def apply_node_action(
    source: str, workspace, tensor_name: str, action_id: str, name=None
) -> CodeEdit:
    """Append the action's line; ``name`` renames ``detach``'s result (else a suggested one)."""
    actions = {a.id: a for a in node_actions(workspace, tensor_name, source)}
    if not actions:
        raise BuildError("tensor", f"no tensor named '{tensor_name}' in the script")
    action = actions.get(action_id)
    if action is None:
        raise BuildError("action", f"'{action_id}' is not an action for {tensor_name}")
    if not action.enabled:
        raise BuildError("action", action.reason)
    code = action.code
    if action_id == "detach" and name is not None:
        problem = name_problem(name, workspace)
        if problem:
            raise BuildError("name", problem)
        code = f"{name} = {tensor_name}.detach()"
    imports = torch_import(source)[1] if action_id == "backward_ones" else ()
    return append_statement(source, code, imports=imports)
