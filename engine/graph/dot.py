"""Graphviz DOT export of the graph model: labels, a shape per kind, gradients on edges."""

from __future__ import annotations

import networkx as nx
import numpy as np

from .model import shape_text

# Shapes and fills per kind, close to the colours the window uses.
_NODE_STYLE = {
    "tensor": 'shape=box, style="filled", fillcolor="#dbeafe"',
    "leaf": 'shape=box, style="filled,bold", fillcolor="#bfdbfe"',
    "function": 'shape=ellipse, style="filled", fillcolor="#f3f4f6"',
    "accumulate": 'shape=box, style="filled,rounded", fillcolor="#dcfce7"',
    "group": 'shape=box3d, style="filled", fillcolor="#fef3c7"',
}
_EXECUTED = ', color="#dc2626", penwidth=2'


def to_dot(graph: nx.DiGraph, name: str = "gradstep") -> str:
    """The graph as Graphviz DOT source (``dot -Tsvg``).

    Tensors are boxes (leaves bold), functions ellipses, accumulators rounded boxes, folded
    groups 3-D boxes; nodes that ran in the last backward have a red outline. Each edge is
    labelled with the gradient that flowed back along it (and ``x2`` when used twice). Module
    groups become nested clusters.
    """
    lines = [f"digraph {_quote(name)} {{", "  rankdir=TB;",
             '  node [fontname="Helvetica", fontsize=10];',
             '  edge [fontname="Helvetica", fontsize=9];']
    clusters: dict[str, list[str]] = {}
    for node_id, attrs in graph.nodes(data=True):
        statement = f"{_quote(node_id)} [label={_quote(_node_label(attrs))}, {_style(attrs)}];"
        group = attrs.get("group")
        if group:
            clusters.setdefault(group, []).append(statement)
        else:
            lines.append("  " + statement)
    lines.extend(_clusters(clusters))
    for u, v, attrs in graph.edges(data=True):
        label = _edge_label(attrs)
        extra = f" [label={_quote(label)}]" if label else ""
        lines.append(f"  {_quote(u)} -> {_quote(v)}{extra};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _clusters(clusters: dict[str, list[str]]) -> list[str]:
    """Nested ``subgraph cluster_*`` blocks: ``model.fc1`` inside ``model``."""
    names = set(clusters)
    for group in list(names):
        parts = group.split(".")
        names.update(".".join(parts[: k + 1]) for k in range(len(parts) - 1))
    children: dict[str | None, list[str]] = {}
    for group in sorted(names):
        parent = group.rsplit(".", 1)[0] if "." in group else None
        children.setdefault(parent, []).append(group)
    index = {group: i for i, group in enumerate(sorted(names))}

    def block(group: str, depth: int) -> list[str]:
        pad = "  " * depth
        out = [f"{pad}subgraph cluster_{index[group]} {{",
               f"{pad}  label={_quote(group)}; style=dashed;"]
        out.extend(f"{pad}  {statement}" for statement in clusters.get(group, []))
        for child in children.get(group, []):
            out.extend(block(child, depth + 1))
        out.append(f"{pad}}}")
        return out

    lines: list[str] = []
    for top in children.get(None, []):
        lines.extend(block(top, 1))
    return lines


def _node_label(attrs: dict) -> str:
    label = str(attrs.get("label", ""))
    kind = attrs.get("kind")
    if kind == "tensor":
        shape = attrs.get("shape")
        if shape is not None:
            label += "\n" + shape_text(shape)
        if attrs.get("grad") is not None:
            label += "\ngrad " + _short(attrs["grad"])
    elif kind == "group":
        label += f"\n({len(attrs.get('members', ()))} nodes)"
    return label


def _style(attrs: dict) -> str:
    kind = attrs.get("kind", "function")
    if kind == "tensor" and attrs.get("is_leaf") and attrs.get("requires_grad"):
        kind = "leaf"
    style = _NODE_STYLE.get(kind, _NODE_STYLE["function"])
    if attrs.get("executed"):
        style += _EXECUTED
    return style


def _edge_label(attrs: dict) -> str:
    parts = []
    if attrs.get("count", 1) > 1:
        parts.append(f"x{attrs['count']}")
    grad = attrs.get("grad")
    if grad is not None:
        parts.append(_short(grad))
    return " ".join(parts)


def _short(array) -> str:
    a = np.asarray(array)
    return np.array2string(a, precision=4, threshold=6, edgeitems=2, separator=", ",
                           max_line_width=60, suppress_small=True).replace("\n", "")


def _quote(text: str) -> str:
    escaped = str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'
