"""A GraphFile to JSON text: the inverse of validate, laid out for people to read and diff.

Objects are indented one key per line; lists of plain values (array data, positions) stay on one
line, so a saved state does not turn into thousands of one-number lines.
"""

from __future__ import annotations

import json

from .codec import LIST_ENCODING_MAX, encode_array
from .format import FORMAT_NAME, FORMAT_VERSION, GraphFile, Recorded, SavedState
from .lines import line_count


def _state_json(state: SavedState, list_max: int = LIST_ENCODING_MAX) -> dict:
    def array(a):
        return None if a is None else encode_array(a, list_max=list_max)

    return {
        "iteration": state.iteration,
        "tensors": {
            name: {"value": array(t.value), "grad": array(t.grad),
                   "requires_grad": t.requires_grad}
            for name, t in state.tensors.items()
        },
        "optimizers": {
            name: {
                "type": opt.type,
                "param_groups": opt.param_groups,
                "state": {p: {k: array(v) if hasattr(v, "dtype") and hasattr(v, "shape")
                              else v for k, v in entry.items()}
                          for p, entry in opt.state.items()},
            }
            for name, opt in state.optimizers.items()
        },
    }


# A recorded graph holds thousands of activation-sized arrays nobody reads by eye: decimal lists
# cost seconds to write and read back, base64 milliseconds.
RECORDED_LIST_MAX = 64


def _recorded_array(array):
    return None if array is None else encode_array(array, list_max=RECORDED_LIST_MAX)


def _recorded_json(recorded: Recorded) -> dict:
    nodes = []
    for n in recorded.nodes:
        node = {"id": n.id, "kind": n.kind, "label": n.label, "attrs": n.attrs}
        if n.value is not None:
            node["value"] = _recorded_array(n.value)
        if n.grad is not None:
            node["grad"] = _recorded_array(n.grad)
        nodes.append(node)
    doc = {
        "nodes": nodes,
        "edges": [{"source": e.source, "target": e.target, "grad": _recorded_array(e.grad)}
                  for e in recorded.edges],
        "leaves": list(recorded.leaves),
    }
    if recorded.iterations:
        doc["iterations"] = [_state_json(state, RECORDED_LIST_MAX)
                             for state in recorded.iterations]
    return doc


def _lines_in_script(items, n_lines: int):
    """Only (line, item) pairs that point into the script, the first one per line.

    Editing a script can delete the line a note or breakpoint was on; such leftovers point
    nowhere, and refusing to save (or autosave) the user's work over them would be worse.
    """
    seen = set()
    for line, item in items:
        if 1 <= line <= n_lines and line not in seen:
            seen.add(line)
            yield line, item


def graph_file_to_json(gf: GraphFile) -> dict:
    """The JSON document (plain dicts and lists) for ``gf``, always in the current version.

    Breakpoints and notes on lines the script no longer has are left out (see
    ``_lines_in_script``).
    """
    n_lines = line_count(gf.script)
    breakpoints = [b for _, b in _lines_in_script(((b.line, b) for b in gf.breakpoints),
                                                  n_lines)]
    notes = dict(_lines_in_script(sorted(gf.notes.items()), n_lines))
    doc = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "title": gf.title,
        "description": gf.description,
        "script": gf.script,
        "breakpoints": [
            # an empty condition (the user cleared it) means none
            {"line": b.line, **({"condition": b.condition} if b.condition else {}),
             "enabled": b.enabled}
            for b in breakpoints
        ],
        "data_breakpoints": {
            "nan": gf.data_breakpoints.nan, "grad_norm": gf.data_breakpoints.grad_norm,
            "on_backward": gf.data_breakpoints.on_backward,
            "on_zero_grad": gf.data_breakpoints.on_zero_grad,
            "on_step": gf.data_breakpoints.on_step,
        },
        "settings": {"seed": gf.settings.seed, "limits": dict(gf.settings.limits)},
        "view": {
            "positions": {k: list(p) for k, p in gf.view.positions.items()},
            "folded": list(gf.view.folded),
            "zoom": gf.view.zoom,
            "center": None if gf.view.center is None else list(gf.view.center),
        },
        "notes": {str(line): text for line, text in notes.items()},
    }
    if gf.state is not None:
        doc["state"] = _state_json(gf.state)
    if gf.recorded is not None:
        doc["recorded"] = _recorded_json(gf.recorded)
    doc["metadata"] = gf.metadata
    return doc


def _is_flat(value) -> bool:
    return isinstance(value, list) and not any(isinstance(v, (list, dict)) for v in value)


def _is_small_record(value) -> bool:
    # a breakpoint or a position reads best on one line
    return (isinstance(value, dict) and len(value) <= 3
            and not any(isinstance(v, (list, dict)) for v in value.values()))


def _one_line(value) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))


def _emit(value, indent: str, out: list) -> None:
    if (isinstance(value, dict) and value
            and not (_is_small_record(value) and len(_one_line(value)) + len(indent) <= 90)):
        inner = indent + "  "
        out.append("{\n")
        for i, (key, v) in enumerate(value.items()):
            out.append(f"{inner}{json.dumps(key, ensure_ascii=False)}: ")
            _emit(v, inner, out)
            out.append(",\n" if i < len(value) - 1 else "\n")
        out.append(indent + "}")
    elif isinstance(value, list) and value and not _is_flat(value):
        inner = indent + "  "
        out.append("[\n")
        for i, v in enumerate(value):
            out.append(inner)
            _emit(v, inner, out)
            out.append(",\n" if i < len(value) - 1 else "\n")
        out.append(indent + "]")
    else:
        out.append(_one_line(value))


def to_text(doc) -> str:
    """JSON text for a document: indented objects, one-line flat lists, a final newline."""
    out: list[str] = []
    _emit(doc, "", out)
    out.append("\n")
    return "".join(out)
