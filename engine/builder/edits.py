"""Text edits a gesture makes: append a statement, add a missing import, spell torch as the
script does.

Every gesture returns a ``CodeEdit`` holding the whole new text; the window applies the smallest
replacement as one undoable edit and re-runs. Imports are compared by what they bind (parsed with
``ast``), never by text, so ``from torch.nn import functional as F`` counts as
``import torch.nn.functional as F``.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass

from .workspace import names_bound_in

TORCH_IMPORT = "import torch"
FUNCTIONAL_IMPORT = "import torch.nn.functional as F"


@dataclass(frozen=True)
class CodeEdit:
    """The script's whole new text, the 1-based line to put the cursor on, and a status-bar
    summary."""

    source: str
    line: int
    summary: str


class BuildError(ValueError):
    """A gesture that cannot be written, naming the form field at fault (``name``,
    ``operands``...)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class FieldRefused(ValueError):
    """A form field's text is not acceptable; the message is the reason shown under the field
    (the form turns it into ``{field: reason}``)."""


# -- what the script imports ---------------------------------------------------------------------

def _parse(source: str):
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def _bindings(statements) -> dict[str, str]:
    """Module-level import bindings: bound name -> the dotted module path (or module.attribute)."""
    bound: dict[str, str] = {}
    for node in statements:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:  # ``import torch.nn`` binds ``torch``
                    top = alias.name.split(".")[0]
                    bound.setdefault(top, top)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                if alias.name != "*":
                    bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return bound


@functools.lru_cache(maxsize=16)
def _module_bindings(source: str) -> dict[str, str] | None:
    # Cached: the palette spells 50-odd ops against the same text on every refresh. Callers
    # only read the dict.
    tree = _parse(source)
    return None if tree is None else _bindings(tree.body)


def _alias_of(bound: dict[str, str], module: str) -> str | None:
    for name, path in bound.items():
        if path == module:
            return name
    return None


def torch_import(source: str) -> tuple[str, tuple[str, ...]]:
    """``(the name to write for torch, the import lines the edit must add)``."""
    bound = _module_bindings(source) or {}
    alias = _alias_of(bound, "torch")
    if alias is not None:
        return alias, ()
    return "torch", (TORCH_IMPORT,)


def torch_alias(source: str) -> str:
    """The name the script imports torch as at module level; ``"torch"`` when it does not."""
    return torch_import(source)[0]


def functional_import(source: str, taken=frozenset()) -> tuple[str, tuple[str, ...]]:
    """``(the name to write for torch.nn.functional, the import lines the edit must add)``.

    A script without one gets ``import torch.nn.functional as F``, unless ``F`` already names
    something else: then ``<torch>.nn.functional`` is spelt out (real torch imports ``nn`` itself).
    """
    bound = _module_bindings(source) or {}
    alias = _alias_of(bound, "torch.nn.functional")
    if alias is not None:
        return alias, ()
    if "F" in taken or "F" in names_bound_in(source):
        torch, imports = torch_import(source)
        return f"{torch}.nn.functional", imports
    return "F", (FUNCTIONAL_IMPORT,)


def functional_alias(source: str, taken=frozenset()) -> str:
    return functional_import(source, taken)[0]


def import_line_for(module: str, alias: str | None = None) -> str:
    """``import torch`` / ``import torch.nn.functional as F``."""
    if alias and alias != module:
        return f"import {module} as {alias}"
    return f"import {module}"


# -- writing -------------------------------------------------------------------------------------

def add_imports(source: str, imports) -> tuple[str, int]:
    """Insert each import the script lacks after its leading imports.

    Returns (text, lines added).
    """
    tree = _parse(source)
    bound = _bindings(tree.body) if tree is not None else None
    present_text = {line.strip() for line in source.splitlines()}
    missing = []
    for line in imports:
        line = line.strip()
        if not line or line in missing:
            continue
        wanted = _bindings(ast.parse(line).body)
        if bound is not None:
            if all(bound.get(name) == path for name, path in wanted.items()):
                continue
        elif line in present_text:  # an unparsable script: the best we can do is compare text
            continue
        missing.append(line)
    if not missing:
        return source, 0
    lines = source.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    at = _import_insertion_index(tree, lines)
    lines[at:at] = [line + "\n" for line in missing]
    return "".join(lines), len(missing)


def _import_insertion_index(tree, lines) -> int:
    """0-based line index after the script's leading imports (and docstring), else 0."""
    if tree is None:
        at = 0
        for i, line in enumerate(lines):
            if line.startswith(("import ", "from ")):
                at = i + 1
            elif line.strip() and not line.lstrip().startswith("#"):
                break
        return at
    at = 0
    for i, node in enumerate(tree.body):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            at = node.end_lineno
        elif (i == 0 and isinstance(node, ast.Expr)
              and isinstance(getattr(node, "value", None), ast.Constant)
              and isinstance(node.value.value, str)):
            at = node.end_lineno  # a module docstring must stay first
        else:
            break
    return at


def append_statement(source: str, code: str, *, imports=(), summary: str | None = None) -> CodeEdit:
    """Append ``code`` (one or more lines) at the end of the script.

    A blank line the script ends with is kept (one, never more): ``import torch`` and a blank
    line, as File ▸ New starts, stays separated from the first statement. Missing ``imports``
    are added at the top first; ``line`` is the appended code's first line in the new text.
    """
    text, _ = add_imports(source, imports)
    body = text.rstrip()
    code = code.strip("\n")
    if body:
        gap = "\n\n" if text[len(body):].count("\n") >= 2 else "\n"
        new = f"{body}{gap}{code}\n"
        line = body.count("\n") + 1 + len(gap)
    else:
        new = f"{code}\n"
        line = 1
    if summary is None:
        summary = code.splitlines()[0].strip() if code else ""
    return CodeEdit(new, line, summary)
