"""A GraphFile to JSON text: the inverse of validate, laid out for people to read and diff.

Objects are indented one key per line; lists of plain values (array data, positions) stay on one
line, so a saved state does not turn into thousands of one-number lines.
"""

from __future__ import annotations

import json

from .codec import LIST_ENCODING_MAX, encode_array
from .columns import recorded_columns_json
from .format import FORMAT_NAME, FORMAT_VERSION, PLAIN_VERSION, GraphFile, SavedState
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


def _recorded_json(recorded) -> dict:
    return recorded_columns_json(recorded, RECORDED_LIST_MAX,
                                 lambda state: _state_json(state, RECORDED_LIST_MAX))


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
    """The JSON document (plain dicts and lists) for ``gf``: version 2 with a recorded graph,
    else version 1 (``format.FORMAT_VERSION``).

    Breakpoints and notes on lines the script no longer has are left out (see
    ``_lines_in_script``).
    """
    n_lines = line_count(gf.script)
    breakpoints = [b for _, b in _lines_in_script(((b.line, b) for b in gf.breakpoints),
                                                  n_lines)]
    notes = dict(_lines_in_script(sorted(gf.notes.items()), n_lines))
    doc = {
        "format": FORMAT_NAME,
        "version": PLAIN_VERSION if gf.recorded is None else FORMAT_VERSION,
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
    elif value is _RAW:
        out.append(_RAW_TEXT)
    else:
        out.append(_one_line(value))


def to_text(doc) -> str:
    """JSON text for a document: indented objects, one-line flat lists, a final newline.

    A recorded graph is written on one line without spaces: it is megabytes of tables nobody
    diffs by eye, and indenting it made a 100,000-node recording a third larger.
    """
    out: list[str] = []
    if isinstance(doc, dict) and "recorded" in doc:
        recorded = json.dumps(doc["recorded"], ensure_ascii=False, allow_nan=False,
                              separators=(",", ":"))
        _emit({**doc, "recorded": _RAW}, "", out)
        out[out.index(_RAW_TEXT)] = recorded
    else:
        _emit(doc, "", out)
    out.append("\n")
    return "".join(out)


_RAW = object()  # stands for the one-line recorded graph while the rest is laid out
_RAW_TEXT = "\x00recorded"
