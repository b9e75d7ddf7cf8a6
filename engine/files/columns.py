"""The recorded graph of format version 2, column-wise: tables instead of one object per node.

A recording of a deep network has 100,000 nodes and as many edges; as one JSON object each (format
version 1) the file was 83 MB and took half a minute to check. Version 2 stores each table as
columns (docs/gstep-format.md, "recorded"):

- a **column** is ``{"levels": [...], "codes": ARRAY}`` (a value repeated across rows, written
  once: ``codes[i]`` indexes ``levels``, -1 where row i lacks the key) or ``{"values": [...]}``
  with an optional ``"rows": ARRAY`` (the rows that have the key; else every row);
- an **array column** packs one numpy array per row into a few flat arrays: ``rows`` (ascending),
  ``dtype`` (an index into ``codec.DTYPES`` per row), ``ndim`` and ``dims`` (the shapes, their
  sizes one after another) and ``data`` {dtype name: the elements of that dtype's rows, in row
  order};
- edges name their ends by node index, and leaves are node indices.

Reading checks every part with numpy (ranges, sorting, sizes) and JSON values in one pass of the
C encoder (``_Reader.plain_values``), so its cost grows linearly with small constants; an error
still names the field, down to the row (``recorded.edges.source[12]``).
"""

from __future__ import annotations

import itertools
import operator

import numpy as np

from .codec import DTYPES, encode_array
from .errors import GraphFileError
from .format import Recorded, RecordedEdge, RecordedNode, SavedState, SavedTensor

NODE_COLUMNS = ("id", "kind", "label", "attrs", "value", "grad")
EDGE_COLUMNS = ("source", "target", "grad")
TENSOR_COLUMNS = ("name", "requires_grad", "value", "grad")
COLUMN_KEYS = ("levels", "codes", "values", "rows")
ARRAY_COLUMN_KEYS = ("rows", "dtype", "ndim", "dims", "data")
_ABSENT = object()  # a row without the key
_SCALARS = (str, int, float, bool, type(None))


# -- writing -----------------------------------------------------------------------------------
def _index_array(values, list_max: int) -> dict:
    """Integers (row indices, codes, -1 for none) in the narrowest signed dtype that holds them:
    a code per node of a few levels takes one byte, not four."""
    array = np.asarray(values, dtype=np.int64)
    top = int(np.abs(array).max()) if array.size else 0
    dtype = next(t for t in (np.int8, np.int16, np.int32, np.int64) if top <= np.iinfo(t).max)
    return encode_array(array.astype(dtype), list_max=list_max)


def column_json(values: list, list_max: int) -> dict:
    """A column of one JSON value per row (``_ABSENT`` for a row without the key)."""
    present = [i for i, v in enumerate(values) if v is not _ABSENT]
    if all(type(values[i]) in _SCALARS for i in present):
        # keyed by type too: True == 1 == 1.0 would otherwise share a level
        levels: dict = {}
        codes = [-1 if v is _ABSENT else levels.setdefault((type(v), v), len(levels))
                 for v in values]
        if len(levels) * 2 <= len(present):
            return {"levels": [v for _, v in levels], "codes": _index_array(codes, list_max)}
    if len(present) == len(values):
        return {"values": list(values)}
    return {"rows": _index_array(present, list_max), "values": [values[i] for i in present]}


def array_column_json(arrays: list, list_max: int) -> dict:
    """A column of one numpy array (or None) per row, packed by dtype."""
    rows = [i for i, a in enumerate(arrays) if a is not None]
    kept = [np.asarray(arrays[i]) for i in rows]
    for a in kept:
        if a.dtype.name not in DTYPES:
            raise GraphFileError(f"arrays of dtype {a.dtype.name} cannot be saved")
    codes = [DTYPES.index(a.dtype.name) for a in kept]
    data = {}
    for code in sorted(set(codes)):
        dtype = np.dtype(DTYPES[code])
        parts = [a.reshape(-1) for a, c in zip(kept, codes) if c == code]
        data[dtype.name] = encode_array(np.concatenate(parts).astype(dtype, copy=False),
                                        list_max=list_max)
    dims = [d for a in kept for d in a.shape]
    return {"rows": _index_array(rows, list_max),
            "dtype": encode_array(np.asarray(codes, np.uint8), list_max=list_max),
            "ndim": encode_array(np.asarray([a.ndim for a in kept], np.uint8), list_max=list_max),
            "dims": encode_array(np.asarray(dims, np.int64), list_max=list_max),
            "data": data}


def recorded_columns_json(recorded: Recorded, list_max: int, state_json) -> dict:
    """The version-2 ``recorded`` object of ``recorded``; ``state_json(state)`` writes the
    optimizers of an iteration (they keep version 1's layout)."""
    nodes = recorded.nodes
    index = {}
    for i, n in enumerate(nodes):
        index.setdefault(n.id, i)
    keys = list(dict.fromkeys(k for n in nodes for k in n.attrs))

    def ends(which: str) -> list:
        out = []
        for i, e in enumerate(recorded.edges):
            end = getattr(e, which)
            if end not in index:
                raise GraphFileError(f"no node with id {end!r}", field=f"recorded.edges[{i}]"
                                     f".{which}")
            out.append(index[end])
        return out

    doc = {
        "nodes": {
            "id": [n.id for n in nodes],
            "kind": column_json([n.kind for n in nodes], list_max),
            "label": column_json([n.label for n in nodes], list_max),
            "attrs": {k: column_json([n.attrs.get(k, _ABSENT) for n in nodes], list_max)
                      for k in keys},
            "value": array_column_json([n.value for n in nodes], list_max),
            "grad": array_column_json([n.grad for n in nodes], list_max),
        },
        "edges": {
            "source": _index_array(ends("source"), list_max),
            "target": _index_array(ends("target"), list_max),
            "grad": array_column_json([e.grad for e in recorded.edges], list_max),
        },
        "leaves": _index_array([index.get(leaf, -1) for leaf in recorded.leaves], list_max),
    }
    if recorded.iterations:
        doc["iterations"] = [_iteration_json(state, list_max, state_json)
                             for state in recorded.iterations]
    return doc


def _iteration_json(state: SavedState, list_max: int, state_json) -> dict:
    tensors = list(state.tensors.values())
    return {
        "iteration": state.iteration,
        "tensors": {
            "name": list(state.tensors),
            "requires_grad": encode_array(np.asarray([t.requires_grad for t in tensors], bool),
                                          list_max=list_max),
            "value": array_column_json([t.value for t in tensors], list_max),
            "grad": array_column_json([t.grad for t in tensors], list_max),
        },
        "optimizers": state_json(state)["optimizers"],
    }


# -- reading -----------------------------------------------------------------------------------
def _unique_rows(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, axis=0, return_inverse=True)`` for small non-negative integer rows,
    through one integer per row: unique over rows sorts a structured view, ten times slower."""
    span = keys.max(axis=0) + 1 if keys.size else np.ones(keys.shape[1], np.int64)
    if np.prod(span.astype(np.float64)) < 2.0 ** 62:
        flat = np.ravel_multi_index(keys.T, span)
        values, first, inverse = np.unique(flat, return_index=True, return_inverse=True)
        return keys[first], inverse.reshape(-1)
    kinds, inverse = np.unique(keys, axis=0, return_inverse=True)
    return kinds, inverse.reshape(-1)


def _row_dicts(columns: dict, n: int) -> list[dict]:
    """One dict per row from ``{key: (values, present)}``. Rows are grouped by which keys they
    have (a tensor's, a function's), and each group's dicts are made by ``dict(zip(...))``, with
    no Python step per key and row."""
    keys = list(columns)
    pattern = np.zeros(n, dtype=object if len(keys) > 62 else np.int64)
    for bit, key in enumerate(keys):
        present = columns[key][1]
        pattern += (1 << bit) * (np.ones(n, np.int64) if present is None else present)
    out: list = [None] * n
    groups, inverse = np.unique(pattern, return_inverse=True)
    inverse = inverse.reshape(-1)
    for g, bits in enumerate(groups.tolist()):
        mine = [key for bit, key in enumerate(keys) if bits >> bit & 1]
        rows = np.flatnonzero(inverse == g).tolist()
        # itemgetter of one row gives the value, not a 1-tuple
        pick = operator.itemgetter(*rows) if len(rows) > 1 else (lambda col, r=rows[0]: [col[r]])
        cells = zip(*(pick(columns[key][0]) for key in mine)) if mine else ([()] * len(rows))
        for row, d in zip(rows, map(dict, map(zip, itertools.repeat(mine), cells))):
            out[row] = d
    return out


class ColumnReader:
    """Reads the version-2 ``recorded`` object with the checks of a ``validate._Reader``."""

    def __init__(self, reader) -> None:
        self.r = reader

    def indices(self, value, path: str, count: int | None = None, *, bound: int | None = None,
                allow_absent: bool = False) -> np.ndarray:
        """A 1-D integer array (of ``count`` entries, if given), each in ``[0, bound)`` (or -1
        where ``allow_absent``)."""
        array = self.r.array(value, path)
        if array.dtype.kind not in "iu" or array.ndim != 1:
            raise GraphFileError(f"expected a 1-D integer array, got {array.dtype.name} of shape "
                                 f"{list(array.shape)}", field=path)
        if count is not None and array.size != count:
            raise GraphFileError(f"{array.size} entries for {count} rows", field=path)
        array = array.astype(np.int64)
        if bound is not None and array.size:
            low = -1 if allow_absent else 0
            bad = np.flatnonzero((array < low) | (array >= bound))
            if bad.size:
                i = int(bad[0])
                raise GraphFileError(f"{int(array[i])} is not an index below {bound}",
                                     field=f"{path}[{i}]")
        return array

    def rows(self, value, path: str, n_rows: int) -> np.ndarray:
        """Row indices: ascending, no repeats, each below ``n_rows``."""
        rows = self.indices(value, path, bound=n_rows)
        unsorted = np.flatnonzero(np.diff(rows) <= 0)
        if unsorted.size:
            raise GraphFileError("rows must be ascending, each once",
                                 field=f"{path}[{int(unsorted[0]) + 1}]")
        return rows

    def column(self, value, path: str, n_rows: int) -> tuple[list, np.ndarray | None]:
        """One JSON value per row (``_ABSENT`` where a row lacks the key), and which rows have
        one (None: all)."""
        self.r.obj(value, path, COLUMN_KEYS)
        if "levels" in value or "codes" in value:
            for key in ("levels", "codes"):
                if key not in value:
                    raise GraphFileError("missing required field", field=f"{path}.{key}")
            for key in ("values", "rows"):
                if key in value:
                    raise GraphFileError("a column has levels and codes, or values",
                                         field=f"{path}.{key}")
            levels = self.r.plain_values(self.r.list(value["levels"], f"{path}.levels"),
                                         f"{path}.levels")
            codes = self.indices(value["codes"], f"{path}.codes", n_rows, bound=len(levels),
                                 allow_absent=True)
            table = [*levels, _ABSENT]  # code -1 picks the last
            present = codes >= 0
            return list(map(table.__getitem__, codes.tolist())), \
                None if present.all() else present
        if "values" not in value:
            raise GraphFileError('expected "levels" and "codes", or "values"', field=path)
        values = self.r.plain_values(self.r.list(value["values"], f"{path}.values"),
                                     f"{path}.values")
        if "rows" not in value:
            if len(values) != n_rows:
                raise GraphFileError(f"{len(values)} values for {n_rows} rows",
                                     field=f"{path}.values")
            return values, None
        rows = self.rows(value["rows"], f"{path}.rows", n_rows)
        if len(values) != rows.size:
            raise GraphFileError(f"{len(values)} values for {rows.size} rows",
                                 field=f"{path}.values")
        out = [_ABSENT] * n_rows
        for i, v in zip(rows.tolist(), values):
            out[i] = v
        present = np.zeros(n_rows, dtype=bool)
        present[rows] = True
        return out, present

    def array_column(self, value, path: str, n_rows: int) -> list:
        """One numpy array (or None) per row."""
        out: list = [None] * n_rows
        if value is None:
            return out
        self.r.obj(value, path, ARRAY_COLUMN_KEYS, ARRAY_COLUMN_KEYS)
        rows = self.rows(value["rows"], f"{path}.rows", n_rows)
        k = rows.size
        codes = self.indices(value["dtype"], f"{path}.dtype", k, bound=len(DTYPES))
        ndim = self.indices(value["ndim"], f"{path}.ndim", k, bound=33)
        total_dims = int(ndim.sum())
        dims = self.indices(value["dims"], f"{path}.dims", total_dims)
        if dims.size and dims.min() < 0:
            i = int(np.flatnonzero(dims < 0)[0])
            raise GraphFileError(f"expected a size (>= 0), got {int(dims[i])}",
                                 field=f"{path}.dims[{i}]")
        starts = np.cumsum(ndim) - ndim
        sizes = np.ones(k, dtype=np.float64)
        has = ndim > 0
        if total_dims:
            sizes[has] = np.multiply.reduceat(dims.astype(np.float64), starts[has])
        limit = self.r.limits.max_array_elements
        big = np.flatnonzero(sizes > limit)
        if big.size:
            i = int(big[0])
            raise GraphFileError(f"array of {int(sizes[i])} elements is larger than the limit "
                                 f"of {limit}", field=f"{path}.dims (row {int(rows[i])})")
        data = self.r.obj(value["data"], f"{path}.data")
        sizes = sizes.astype(np.int64)
        flats, offsets = {}, np.zeros(k, dtype=np.int64)
        for code in sorted(set(codes.tolist())):
            name = DTYPES[code]
            where = f"{path}.data.{name}"
            if name not in data:
                raise GraphFileError("missing: rows of this dtype have no data", field=where)
            flat = self.r.array(data[name], where)
            mine = codes == code
            need = int(sizes[mine].sum())
            if flat.dtype.name != name or flat.ndim != 1 or flat.size != need:
                raise GraphFileError(f"expected {need} elements of {name} in one dimension, got "
                                     f"{flat.dtype.name} of shape {list(flat.shape)}",
                                     field=where)
            flats[code] = flat
            offsets[mine] = np.cumsum(sizes[mine]) - sizes[mine]
        for name in data:
            if name not in DTYPES or DTYPES.index(name) not in flats:
                raise GraphFileError("no row has this dtype", field=f"{path}.data.{name}")
        # Rows of one dtype and shape are cut out together, as the rows of one block: a slice
        # and a reshape per row cost a second per 100,000 rows.
        for d in set(ndim.tolist()):
            of_rank = np.flatnonzero(ndim == d)
            keys = np.column_stack([codes[of_rank], dims[starts[of_rank][:, None] +
                                                         np.arange(d)]])
            kinds, inverse = _unique_rows(keys)
            for g, (code, *shape) in enumerate(kinds.tolist()):
                members = of_rank[inverse == g]
                size = int(np.prod(shape, dtype=np.int64))
                block = flats[code][offsets[members][:, None] + np.arange(size)]
                # iterating an (n,) block gives numpy scalars, not 0-d arrays
                parts = block.reshape(members.size, *shape) if shape else \
                    [b.reshape(()) for b in block]
                for row, array in zip(rows[members].tolist(), parts):
                    out[row] = array
        return out

    def recorded(self, value) -> Recorded:
        r = self.r
        r.obj(value, "recorded", ("nodes", "edges", "leaves", "iterations"), ("nodes", "edges"))
        table = r.obj(value["nodes"], "recorded.nodes", NODE_COLUMNS, ("id", "kind"))
        ids = r.list(table["id"], "recorded.nodes.id")
        n = len(ids)
        self._check_ids(ids)
        kinds = self.column(table["kind"], "recorded.nodes.kind", n)[0]
        kinds = self._check_strings(kinds, "recorded.nodes.kind", choices=r.node_kinds)
        labels = [""] * n if "label" not in table else self._check_strings(
            self.column(table["label"], "recorded.nodes.label", n)[0], "recorded.nodes.label",
            default="")
        attrs_in = r.obj(table.get("attrs", {}), "recorded.nodes.attrs")
        columns = {r.str(key, f"recorded.nodes.attrs.{key}"):
                   self.column(col, f"recorded.nodes.attrs.{key}", n)
                   for key, col in attrs_in.items()}
        attrs = _row_dicts(columns, n)
        values = self.array_column(table.get("value"), "recorded.nodes.value", n)
        grads = self.array_column(table.get("grad"), "recorded.nodes.grad", n)
        nodes = list(map(RecordedNode, ids, kinds, labels, attrs, values, grads))

        etable = r.obj(value["edges"], "recorded.edges", EDGE_COLUMNS, ("source", "target"))
        source = self.indices(etable["source"], "recorded.edges.source", bound=n)
        m = source.size
        ends = [source, self.indices(etable["target"], "recorded.edges.target", m, bound=n)]
        egrads = self.array_column(etable.get("grad"), "recorded.edges.grad", m)
        edges = list(map(RecordedEdge, map(ids.__getitem__, ends[0].tolist()),
                         map(ids.__getitem__, ends[1].tolist()), egrads))

        leaves: list = []
        if value.get("leaves") is not None:
            leaf_rows = self.indices(value["leaves"], "recorded.leaves", bound=n)
            for i, row in enumerate(leaf_rows.tolist()):
                if kinds[row] != "tensor":
                    raise GraphFileError(f"node {row} ({ids[row]!r}) is not a tensor node",
                                         field=f"recorded.leaves[{i}]")
            leaves = [ids[row] for row in leaf_rows.tolist()]
        iterations = [self.iteration(item, f"recorded.iterations[{i}]") for i, item in
                      enumerate(r.list(value.get("iterations", []), "recorded.iterations"))]
        return Recorded(nodes, edges, leaves, iterations)

    def iteration(self, value, path: str) -> SavedState:
        r = self.r
        r.obj(value, path, ("iteration", "tensors", "optimizers"), ("tensors",))
        table = r.obj(value["tensors"], f"{path}.tensors", TENSOR_COLUMNS, ("name", "value"))
        tpath = f"{path}.tensors"
        names = r.list(table["name"], f"{tpath}.name")
        n = len(names)
        self._check_strings(names, f"{tpath}.name", nonempty=True)
        if len(set(names)) != n:
            i = next(i for i, name in enumerate(names) if names.index(name) != i)
            raise GraphFileError(f"tensor {names[i]!r} is listed twice", field=f"{tpath}.name[{i}]")
        flags = [False] * n
        if "requires_grad" in table:
            flag_array = r.array(table["requires_grad"], f"{tpath}.requires_grad")
            if flag_array.dtype != np.bool_ or flag_array.shape != (n,):
                raise GraphFileError(f"expected {n} bools", field=f"{tpath}.requires_grad")
            flags = flag_array.tolist()
        values = self.array_column(table["value"], f"{tpath}.value", n)
        grads = self.array_column(table.get("grad"), f"{tpath}.grad", n)
        tensors = {}
        for i, (name, v, g, flag) in enumerate(zip(names, values, grads, flags)):
            if v is None:
                raise GraphFileError("a tensor without a value", field=f"{tpath}.value (row {i})")
            if (flag and v.dtype.kind != "f") or (g is not None and (
                    g.shape != v.shape or g.dtype != v.dtype)):
                r.checked_tensor(v, g, flag, r.child(tpath, name))  # raises, naming the field
            tensors[name] = SavedTensor(v, g, flag)
        optimizers = {
            name: r.optimizer(item, r.child(f"{path}.optimizers", name), tensors)
            for name, item in r.obj(value.get("optimizers", {}), f"{path}.optimizers").items()
        }
        return SavedState(r.int(value.get("iteration", 0), f"{path}.iteration", minimum=0),
                          tensors, optimizers)

    # -- checks of whole columns
    def _check_ids(self, ids: list) -> None:
        self._check_strings(ids, "recorded.nodes.id", nonempty=True)
        if len(set(ids)) != len(ids):
            seen: dict = {}
            for i, node_id in enumerate(ids):
                if node_id in seen:
                    raise GraphFileError(f"node id {node_id!r} is used twice (first at row "
                                         f"{seen[node_id]})", field=f"recorded.nodes.id[{i}]")
                seen[node_id] = i

    def _check_strings(self, values: list, path: str, *, nonempty: bool = False,
                       default: str | None = None, choices: tuple | None = None) -> list:
        if default is not None:
            values = [default if v is _ABSENT else v for v in values]
        types = set(map(type, values))
        ok = types <= {str} and not (nonempty and "" in values)
        if ok and choices is not None:
            ok = set(values) <= set(choices)
        if ok:
            try:
                "".join(values).encode("utf-8")
            except UnicodeEncodeError:
                ok = False
        if not ok:  # find the row, for the message
            for i, v in enumerate(values):
                if v is _ABSENT:
                    raise GraphFileError("missing: every row needs one", field=f"{path}[{i}]")
                self.r.str(v, f"{path}[{i}]", nonempty=nonempty)
                if choices is not None and v not in choices:
                    raise GraphFileError(f"expected one of {', '.join(choices)}, got {v!r}",
                                         field=f"{path}[{i}]")
        return values
