"""``from __future__ import annotations`` (and the other features, which are always on)."""

from __future__ import annotations
import __future__


def build(interp) -> dict:
    return {name: getattr(__future__, name) for name in __future__.all_feature_names
            if name != "barry_as_FLUFL"}
