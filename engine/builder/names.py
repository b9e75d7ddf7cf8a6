"""Names for new results: refuse ones that would break or shadow something, suggest free ones."""

from __future__ import annotations

import builtins
import keyword

# Builtins a script would lose by rebinding them (``sum = x.sum()`` breaks a later ``sum(...)``).
# Every public builtin counts; ``_`` and dunder names are not the user's concern here.
_BUILTINS = frozenset(n for n in dir(builtins) if not n.startswith("_"))
# Names a PyTorch script relies on even though they are not builtins.
_RESERVED = frozenset({"torch", "nn", "F", "np", "optim"})


def name_problem(name: str, workspace) -> str | None:
    """Why ``name`` cannot name a new result, or None when it can."""
    if not name:
        return "a name is needed"
    if not name.isidentifier():
        return _why_not_identifier(name)
    if keyword.iskeyword(name):  # soft keywords (match, case) are legal names
        return f"'{name}' is a Python keyword"
    info = workspace.tensors.get(name)
    if info is not None:
        return f"'{name}' is already a tensor ({info.label}) in the script"
    if name in workspace.optimizers:
        return f"'{name}' is already an optimizer ({workspace.optimizers[name].kind}) in the script"
    if name in workspace.modules:
        return f"'{name}' is already a module ({workspace.modules[name]}) in the script"
    if name in workspace.taken:
        return f"'{name}' is already used in the script"
    if name in _BUILTINS:
        return f"'{name}' is a Python builtin the script would lose"
    if name in _RESERVED:
        return f"'{name}' is the usual name of a module the script may need"
    return None


def _why_not_identifier(name: str) -> str:
    if name[0].isdigit():
        return f"'{name}' starts with a digit"
    if name != name.strip():
        return f"'{name}' contains a space"
    for ch in name:
        if not (ch.isalnum() or ch == "_"):
            what = "a space" if ch.isspace() else f"'{ch}'"
            return f"'{name}' contains {what}: use letters, digits and _"
    return f"'{name}' is not a Python name"


def suggest_name(stem: str, workspace) -> str:
    """``stem``, else ``stem1``, ``stem2``... : the first one ``name_problem`` accepts."""
    stem = stem if stem and stem.isidentifier() else "t"
    if name_problem(stem, workspace) is None:
        return stem
    i = 1
    while name_problem(f"{stem}{i}", workspace) is not None:
        i += 1
    return f"{stem}{i}"


def form_start_errors(name: str, workspace, field: str, value: str, choices,
                      what: str) -> dict[str, str]:
    """The checks every form starts with: its result's name, and its kind among ``choices``
    (``what`` names the kind in the message). A bad kind comes last: nothing after it applies."""
    errors: dict[str, str] = {}
    problem = name_problem(name.strip(), workspace)
    if problem:
        errors["name"] = problem
    if value not in choices:
        errors[field] = f"unknown {what} '{value}': choose one of {', '.join(choices)}"
    return errors

