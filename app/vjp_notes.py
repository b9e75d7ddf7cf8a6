"""What each backward node does to the gradient, in words, for the inspector.

Keyed by PyTorch's node name. The notes live in the engine's op table, one per row
(``engine/ops/table.py``: ``note=``); this module only reads them. They are descriptions for people,
not rules: the numbers shown next to them are the ones the engine computed.
"""

from engine.ops.table import notes

VJP_NOTES = notes()


def vjp_note(node_name: str | None) -> str:
    if not node_name:
        return ""
    return VJP_NOTES.get(node_name) or VJP_NOTES.get(node_name.rsplit(":", 1)[-1], "")
