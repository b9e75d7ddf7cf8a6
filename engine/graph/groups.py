"""Module groups for function nodes that nobody annotated.

A function node belongs to the module whose ``forward`` created it when ``Node.metadata['module']``
says so. Without that annotation, what a module's parameters touch directly is still plain to see:
an op that reads a module's parameter (through its ``AccumulateGrad``), or reads an op that reads
nothing but that module's parameters (``TBackward0`` of ``fc1.weight``), belongs to that module.
That covers what ``nn.Linear`` and friends do; activations in between stay outside, where a user's
``forward`` put them.
"""

from __future__ import annotations


def infer_groups(nodes: list, edges: list) -> None:
    """Set ``group`` on unannotated function nodes from their inputs.

    Parameters
    ----------
    nodes : list of (id, attributes)
        In creation order, so every input comes before its consumers.
    edges : list of (source, target, attributes)
        With ``count``, the number of uses.
    """
    inputs: dict = {}
    for source, target, edge in edges:
        inputs.setdefault(target, []).append((source, edge.get("count", 1)))
    attrs_of = dict(nodes)
    pure: set = set()  # function nodes that read only one module's parameters
    for node_id, attrs in nodes:
        if attrs.get("kind") != "function" or attrs.get("group"):
            continue
        groups = set()
        all_parameters = True
        uses = 0
        for source, count in inputs.get(node_id, ()):
            source_attrs = attrs_of[source]
            group = source_attrs.get("group")
            uses += count
            if group and (source_attrs.get("kind") == "accumulate" or source in pure):
                groups.add(group)
            else:
                all_parameters = False
        if len(groups) == 1:
            attrs["group"] = groups.pop()
            # Inputs without an edge (a tensor that needs no grad, like the batch) count too.
            if all_parameters and uses == attrs.get("inputs", uses):
                pure.add(node_id)
