"""A parsed JSON value to a GraphFile, checking every field; errors name the field's path.

The reader walks the document in a fixed order -- format and version first, so that a file from a
newer gradstep is reported as such rather than as a pile of unknown fields -- and stops at the
first problem with one GraphFileError such as ``breakpoints[2].line: expected an integer, got
"x"``. The field-name tuples below are the whole vocabulary of the format (the schema in
resources/gstep.schema.json is tested against them).
"""

from __future__ import annotations

import json
import math
import re

from ..script.limits import Limits
from . import format as fmt
from .codec import decode_array, describe
from .columns import ColumnReader
from .errors import GraphFileError
from .limits import DEFAULT_LIMITS, ReadLimits
from .lines import line_count
from .parse import NonStandardNumber

TOP_LEVEL_FIELDS = ("format", "version", "title", "description", "script", "breakpoints",
                    "data_breakpoints", "settings", "view", "notes", "state", "recorded",
                    "metadata")
REQUIRED_TOP_LEVEL = ("format", "version", "script")
BREAKPOINT_FIELDS = ("line", "condition", "enabled")
DATA_BREAKPOINT_FIELDS = ("nan", "grad_norm", "on_backward", "on_zero_grad", "on_step")
APP_LIMITS = Limits()  # the most a file's settings.limits may ask for
SETTINGS_FIELDS = ("seed", "limits")
VIEW_FIELDS = ("positions", "folded", "zoom", "center")
STATE_FIELDS = ("iteration", "tensors", "optimizers")
TENSOR_FIELDS = ("value", "grad", "requires_grad")
OPTIMIZER_FIELDS = ("type", "param_groups", "state")
RECORDED_FIELDS = ("nodes", "edges", "leaves", "iterations")
RECORDED_NODE_FIELDS = ("id", "kind", "label", "attrs", "value", "grad")
RECORDED_EDGE_FIELDS = ("source", "target", "grad")
NODE_KINDS = ("tensor", "function", "accumulate")

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def child(path: str, key) -> str:
    """The path of ``key`` under ``path``: ``a.b``, ``a[3]`` or ``a["odd key"]``."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if _IDENTIFIER.match(key):
        return f"{path}.{key}" if path else key
    return f'{path}[{describe(key)}]'


class _Reader:
    """Checks one document; keeps the running element count against the limits."""

    node_kinds = NODE_KINDS
    child = staticmethod(child)

    def __init__(self, limits: ReadLimits, parsed_clean: bool = False) -> None:
        self.limits = limits
        self.elements = 0
        # the document came from parse_json: nesting within max_depth, no key twice anywhere
        self.parsed_clean = parsed_clean

    # -- primitive checks ---------------------------------------------------------------------
    def obj(self, value, path: str, fields: tuple | None = None, required: tuple = ()) -> dict:
        if not isinstance(value, dict):
            raise GraphFileError(f"expected an object, got {describe(value)}",
                                 field=path or "top level")
        for key in getattr(value, "duplicates", ()):
            raise GraphFileError("this key appears more than once", field=child(path, key))
        if fields is not None:
            for key in value:
                if key not in fields:
                    raise GraphFileError(f"unknown field (expected one of {', '.join(fields)})",
                                         field=child(path, key))
        for key in required:
            if key not in value:
                raise GraphFileError("missing required field", field=child(path, key))
        return value

    def list(self, value, path: str) -> list:
        if not isinstance(value, list):
            raise GraphFileError(f"expected a list, got {describe(value)}", field=path)
        return value

    def str(self, value, path: str, *, nonempty: bool = False) -> str:
        if not isinstance(value, str):
            raise GraphFileError(f"expected a string, got {describe(value)}", field=path)
        if nonempty and not value:
            raise GraphFileError("expected a non-empty string", field=path)
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise GraphFileError("contains an unpaired surrogate (\\ud800-\\udfff)",
                                 field=path) from None
        return value

    def bool(self, value, path: str) -> bool:
        if not isinstance(value, bool):
            raise GraphFileError(f"expected true or false, got {describe(value)}", field=path)
        return value

    def int(self, value, path: str, *, minimum: int | None = None,
            maximum: int | None = None) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise GraphFileError(f"expected an integer, got {describe(value)}", field=path)
        if minimum is not None and value < minimum:
            raise GraphFileError(f"expected an integer >= {minimum}, got {value}", field=path)
        if maximum is not None and value > maximum:
            raise GraphFileError(f"expected an integer <= {maximum}, got {value}", field=path)
        return value

    def number(self, value, path: str, *, positive: bool = False) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise GraphFileError(f"expected a number, got {describe(value)}", field=path)
        try:
            value = float(value)
        except OverflowError:  # an integer with hundreds of digits
            raise GraphFileError("expected a finite number, got a huge integer",
                                 field=path) from None
        if not math.isfinite(value) or (positive and value <= 0):
            raise GraphFileError(f"expected a {'positive ' if positive else ''}finite number, "
                                 f"got {describe(value)}", field=path)
        return value

    def point(self, value, path: str) -> tuple[float, float]:
        if not isinstance(value, list) or len(value) != 2:
            raise GraphFileError(f"expected [x, y], got {describe(value)}", field=path)
        return (self.number(value[0], f"{path}[0]"), self.number(value[1], f"{path}[1]"))

    def array(self, value, path: str):
        if isinstance(value, dict):
            self.obj(value, path)  # duplicate keys
        out = decode_array(value, path, max_elements=self.limits.max_array_elements)
        self.elements += out.size
        if self.elements > self.limits.max_total_elements:
            raise GraphFileError(f"the arrays in this file hold more than "
                                 f"{self.limits.max_total_elements} elements", field=path)
        return out

    def optional_array(self, value, path: str):
        return None if value is None else self.array(value, path)

    def plain(self, value, path: str, depth: int = 0):
        """Free-form JSON (metadata, recorded attrs): only checked to be standard, finite JSON."""
        if depth > self.limits.max_depth:
            raise GraphFileError("nested too deeply", field=path)
        if isinstance(value, NonStandardNumber):
            raise GraphFileError(f"got {value}", field=path)
        if isinstance(value, dict):
            self.obj(value, path)
            return {self.str(k, child(path, k)): self.plain(v, child(path, k), depth + 1)
                    for k, v in value.items()}
        if isinstance(value, list):
            return [self.plain(v, child(path, i), depth + 1) for i, v in enumerate(value)]
        if isinstance(value, str):
            return self.str(value, path)
        if isinstance(value, float) and not math.isfinite(value):
            raise GraphFileError(f"{value} is not a finite number", field=path)
        return value

    def plain_values(self, values: list, path: str) -> list:
        """``plain`` for a list of many values (a column of a recorded table), in one pass of
        the C encoder when the text was parsed here (depth already checked, no duplicate keys
        anywhere): it refuses exactly the non-finite numbers, the NaN markers and the unpaired
        surrogates ``plain`` refuses. Else, or when it refuses, ``plain`` finds the row."""
        if self.parsed_clean:
            try:
                json.dumps(values, allow_nan=False, ensure_ascii=False).encode("utf-8")
                return values
            except (TypeError, ValueError, UnicodeEncodeError, RecursionError):
                pass
        return [self.plain(v, child(path, i), 1) for i, v in enumerate(values)]

    # -- the document -------------------------------------------------------------------------
    def graph_file(self, doc) -> fmt.GraphFile:
        if not isinstance(doc, dict):
            raise GraphFileError(f"expected a gradstep file (a JSON object), got {describe(doc)}",
                                 field="top level")
        self.obj(doc, "")
        if "format" not in doc:
            raise GraphFileError('missing required field; a gradstep file starts with '
                                 '"format": "gradstep"', field="format")
        if doc["format"] != fmt.FORMAT_NAME:
            raise GraphFileError(f'expected "{fmt.FORMAT_NAME}", got {describe(doc["format"])}: '
                                 "this is not a gradstep file", field="format")
        if "version" not in doc:
            raise GraphFileError("missing required field", field="version")
        version = self.int(doc["version"], "version")
        if version > fmt.FORMAT_VERSION:
            raise GraphFileError(f"this file was written by a newer gradstep (format version "
                                 f"{version}); this version reads up to {fmt.FORMAT_VERSION}",
                                 field="version")
        if version < 1:
            raise GraphFileError(f"unknown format version {version}", field="version")
        self.obj(doc, "", TOP_LEVEL_FIELDS, REQUIRED_TOP_LEVEL)

        script = self.str(doc["script"], "script")
        if len(script) > self.limits.max_script_chars:
            raise GraphFileError(f"the script has {len(script)} characters; the limit is "
                                 f"{self.limits.max_script_chars}", field="script")
        n_lines = line_count(script)
        gf = fmt.GraphFile(
            script=script,
            title=self.str(doc.get("title", ""), "title"),
            description=self.str(doc.get("description", ""), "description"),
            version=version,
        )
        gf.breakpoints = self.breakpoints(doc.get("breakpoints", []), n_lines)
        gf.data_breakpoints = self.data_breakpoints(doc.get("data_breakpoints", {}))
        gf.settings = self.settings(doc.get("settings", {}))
        gf.view = self.view(doc.get("view", {}))
        gf.notes = self.notes(doc.get("notes", {}), n_lines)
        if doc.get("state") is not None:
            gf.state = self.state(doc["state"])
        if doc.get("recorded") is not None:
            gf.recorded = (self.recorded(doc["recorded"]) if version == 1
                           else ColumnReader(self).recorded(doc["recorded"]))
        gf.metadata = self.plain(self.obj(doc.get("metadata", {}), "metadata"), "metadata")
        return gf

    def script_line(self, value, path: str, n_lines: int) -> int:
        line = self.int(value, path, minimum=1)
        if line > n_lines:
            raise GraphFileError(f"line {line} is past the end of the script ({n_lines} lines)",
                                 field=path)
        return line

    def breakpoints(self, value, n_lines: int) -> list[fmt.Breakpoint]:
        out, first_at = [], {}
        for i, item in enumerate(self.list(value, "breakpoints")):
            path = f"breakpoints[{i}]"
            self.obj(item, path, BREAKPOINT_FIELDS, ("line",))
            line = self.script_line(item["line"], f"{path}.line", n_lines)
            if line in first_at:
                raise GraphFileError(f"a breakpoint at line {line} is already set by "
                                     f"breakpoints[{first_at[line]}]", field=f"{path}.line")
            first_at[line] = i
            condition = item.get("condition")
            if condition is not None:
                condition = self.str(condition, f"{path}.condition", nonempty=True)
            enabled = self.bool(item.get("enabled", True), f"{path}.enabled")
            out.append(fmt.Breakpoint(line, condition, enabled))
        return out

    def data_breakpoints(self, value) -> fmt.DataBreakpoints:
        path = "data_breakpoints"
        self.obj(value, path, DATA_BREAKPOINT_FIELDS)
        flags = {k: self.bool(value.get(k, False), child(path, k))
                 for k in DATA_BREAKPOINT_FIELDS if k != "grad_norm"}
        norm = value.get("grad_norm")
        if norm is not None:
            norm = self.number(norm, f"{path}.grad_norm", positive=True)
        return fmt.DataBreakpoints(grad_norm=norm, **flags)

    def settings(self, value) -> fmt.Settings:
        self.obj(value, "settings", SETTINGS_FIELDS)
        seed = self.int(value.get("seed", 0), "settings.seed", minimum=0)
        if seed >= 2**64:
            raise GraphFileError("expected a seed below 2**64", field="settings.seed")
        limits = self.obj(value.get("limits", {}), "settings.limits", fmt.LIMIT_NAMES)
        # A file may only lower the app's limits: a file from anyone must not let its script
        # run longer or allocate more than any script may.
        return fmt.Settings(seed, {k: self.int(v, f"settings.limits.{k}", minimum=1,
                                           maximum=getattr(APP_LIMITS, k))
                               for k, v in limits.items()})

    def view(self, value) -> fmt.ViewState:
        self.obj(value, "view", VIEW_FIELDS)
        positions = self.obj(value.get("positions", {}), "view.positions")
        folded = self.list(value.get("folded", []), "view.folded")
        groups = [self.str(g, f"view.folded[{i}]", nonempty=True) for i, g in enumerate(folded)]
        if len(set(groups)) != len(groups):
            i = next(i for i, g in enumerate(groups) if groups.index(g) != i)
            raise GraphFileError(f"group {describe(groups[i])} is listed twice",
                                 field=f"view.folded[{i}]")
        center = value.get("center")
        return fmt.ViewState(
            positions={k: self.point(p, child("view.positions", k)) for k, p in positions.items()},
            folded=groups,
            zoom=self.number(value.get("zoom", 1.0), "view.zoom", positive=True),
            center=None if center is None else self.point(center, "view.center"),
        )

    def notes(self, value, n_lines: int) -> dict[int, str]:
        out = {}
        for key, text in self.obj(value, "notes").items():
            path = f"notes[{describe(key)}]"  # keys are numbers in strings: notes["12"]
            if not (key.isascii() and key.isdigit()) or key.startswith("0"):
                raise GraphFileError(f"expected a line number as the key, got {describe(key)}",
                                     field=path)
            out[self.script_line(int(key), path, n_lines)] = self.str(text, path)
        return out

    def state(self, value, path: str = "state") -> fmt.SavedState:
        self.obj(value, path, STATE_FIELDS, ("tensors",))
        tensors = {}
        for name, item in self.obj(value["tensors"], f"{path}.tensors").items():
            tensors[self.str(name, child(f"{path}.tensors", name), nonempty=True)] = self.tensor(
                item, child(f"{path}.tensors", name))
        optimizers = {
            name: self.optimizer(item, child(f"{path}.optimizers", name), tensors)
            for name, item in self.obj(value.get("optimizers", {}), f"{path}.optimizers").items()
        }
        return fmt.SavedState(self.int(value.get("iteration", 0), f"{path}.iteration",
                                       minimum=0), tensors, optimizers)

    def tensor(self, value, path: str) -> fmt.SavedTensor:
        self.obj(value, path, TENSOR_FIELDS, ("value",))
        array = self.array(value["value"], f"{path}.value")
        grad = self.optional_array(value.get("grad"), f"{path}.grad")
        requires_grad = self.bool(value.get("requires_grad", False), f"{path}.requires_grad")
        return self.checked_tensor(array, grad, requires_grad, path)

    def checked_tensor(self, array, grad, requires_grad: bool, path: str) -> fmt.SavedTensor:
        """A SavedTensor once its flag and grad agree with its value."""
        if requires_grad and array.dtype.kind != "f":
            raise GraphFileError(f"only floating point tensors can require gradients (dtype "
                                 f"{array.dtype.name})", field=f"{path}.requires_grad")
        if grad is not None and (grad.shape != array.shape or grad.dtype != array.dtype):
            raise GraphFileError(f"a {grad.dtype.name} grad of shape {list(grad.shape)} for a "
                                 f"{array.dtype.name} value of shape {list(array.shape)}",
                                 field=f"{path}.grad")
        return fmt.SavedTensor(array, grad, requires_grad)

    def optimizer(self, value, path: str, tensors: dict) -> fmt.SavedOptimizer:
        self.obj(value, path, OPTIMIZER_FIELDS, ("type",))

        def tensor_name(name, where: str) -> str:
            self.str(name, where)
            if name not in tensors:
                raise GraphFileError(f"no tensor {describe(name)} in state.tensors", field=where)
            return name

        groups = []
        for i, group in enumerate(self.list(value.get("param_groups", []),
                                            f"{path}.param_groups")):
            gpath = f"{path}.param_groups[{i}]"
            group = self.plain(self.obj(group, gpath, None, ("params",)), gpath)
            params = self.list(group["params"], f"{gpath}.params")
            group["params"] = [tensor_name(p, f"{gpath}.params[{j}]")
                               for j, p in enumerate(params)]
            groups.append(group)
        state = {}
        for name, entry in self.obj(value.get("state", {}), f"{path}.state").items():
            epath = child(f"{path}.state", name)
            tensor_name(name, epath)
            state[name] = {k: self.array(v, child(epath, k)) if isinstance(v, dict)
                           else self.number(v, child(epath, k)) if isinstance(v, float)
                           else self.int(v, child(epath, k))
                           for k, v in self.obj(entry, epath).items()}
        return fmt.SavedOptimizer(self.str(value["type"], f"{path}.type", nonempty=True), groups,
                              state)

    def recorded(self, value) -> fmt.Recorded:
        self.obj(value, "recorded", RECORDED_FIELDS, ("nodes", "edges"))
        nodes, kinds = [], {}
        for i, item in enumerate(self.list(value["nodes"], "recorded.nodes")):
            path = f"recorded.nodes[{i}]"
            self.obj(item, path, RECORDED_NODE_FIELDS, ("id", "kind"))
            node_id = self.str(item["id"], f"{path}.id", nonempty=True)
            if node_id in kinds:
                raise GraphFileError(f"node id {describe(node_id)} is used twice",
                                     field=f"{path}.id")
            kind = self.str(item["kind"], f"{path}.kind")
            if kind not in NODE_KINDS:
                raise GraphFileError(f"expected one of {', '.join(NODE_KINDS)}, got "
                                     f"{describe(kind)}", field=f"{path}.kind")
            kinds[node_id] = kind
            nodes.append(fmt.RecordedNode(
                node_id, kind, self.str(item.get("label", ""), f"{path}.label"),
                self.plain(self.obj(item.get("attrs", {}), f"{path}.attrs"), f"{path}.attrs"),
                self.optional_array(item.get("value"), f"{path}.value"),
                self.optional_array(item.get("grad"), f"{path}.grad")))
        edges = []
        for i, item in enumerate(self.list(value["edges"], "recorded.edges")):
            path = f"recorded.edges[{i}]"
            self.obj(item, path, RECORDED_EDGE_FIELDS, ("source", "target"))
            ends = [self.str(item[k], f"{path}.{k}") for k in ("source", "target")]
            for k, end in zip(("source", "target"), ends):
                if end not in kinds:
                    raise GraphFileError(f"no node with id {describe(end)}", field=f"{path}.{k}")
            edges.append(fmt.RecordedEdge(*ends, self.optional_array(item.get("grad"),
                                                                 f"{path}.grad")))
        leaves = []
        for i, leaf in enumerate(self.list(value.get("leaves", []), "recorded.leaves")):
            path = f"recorded.leaves[{i}]"
            if kinds.get(self.str(leaf, path)) != "tensor":
                raise GraphFileError(f"{describe(leaf)} is not the id of a tensor node",
                                     field=path)
            leaves.append(leaf)
        iterations = [self.state(item, f"recorded.iterations[{i}]") for i, item in
                      enumerate(self.list(value.get("iterations", []), "recorded.iterations"))]
        return fmt.Recorded(nodes, edges, leaves, iterations)


def graph_file_from_json(doc, limits: ReadLimits = DEFAULT_LIMITS, *,
                         parsed_clean: bool = False) -> fmt.GraphFile:
    """Check a parsed JSON document and build the GraphFile it describes.

    Raises
    ------
    GraphFileError
        At the first problem, naming the field's path.
    """
    return _Reader(limits, parsed_clean).graph_file(doc)
