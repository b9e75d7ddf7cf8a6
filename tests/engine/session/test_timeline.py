"""Timeline storage: keyframes plus changes, shared records, and the memory budget."""

import numpy as np
import pytest

import engine as torch
from engine.session.state import capture
from engine.session.timeline import Timeline, TimelinePoint


def _record_run(timeline: Timeline, steps: int):
    """Simulate a loop that changes ``w`` every point and ``b`` every third; return w's values."""
    w = torch.zeros(4)
    b = torch.zeros(2)
    ns = {"w": w, "b": b, "lr": 0.1}
    snap, values = None, []
    for i in range(steps):
        w._data += 1.0
        if i % 3 == 0:
            b._data -= 1.0
        snap = capture(ns, None, snap, console_lines=i)
        timeline.append(TimelinePoint(i, "statement", 1 + i % 5, raw_index=i), snap)
        values.append((w._data.copy(), b._data.copy()))
    return values


def test_every_point_reads_back_the_values_recorded_there():
    timeline = Timeline(keyframe_every=8)
    values = _record_run(timeline, 50)
    for i in (0, 7, 8, 9, 31, 49):
        snap = timeline.snapshot(i)
        np.testing.assert_array_equal(snap.tensors["w"].value, values[i][0])
        np.testing.assert_array_equal(snap.tensors["b"].value, values[i][1])
        assert snap.console_lines == i


def test_unchanged_tensors_share_one_record_between_points():
    timeline = Timeline(keyframe_every=8)
    _record_run(timeline, 4)  # b changes before points 0 and 3 only
    assert timeline.snapshot(1).tensors["b"] is timeline.snapshot(2).tensors["b"]
    assert timeline.snapshot(2).tensors["b"] is not timeline.snapshot(3).tensors["b"]


def test_over_budget_the_oldest_segments_are_evicted_and_recent_ones_kept():
    timeline = Timeline(budget_bytes=20_000, keyframe_every=8)
    values = _record_run(timeline, 200)
    assert timeline.stored_bytes <= 20_000
    assert timeline.evicted_segments > 0
    assert timeline.snapshot(0) is None
    np.testing.assert_array_equal(timeline.snapshot(199).tensors["w"].value, values[199][0])
    assert len(timeline) == 200  # points stay; only their snapshots went


def test_truncate_forgets_later_points_and_keeps_appending_consistently():
    timeline = Timeline(keyframe_every=4)
    _record_run(timeline, 10)
    timeline.truncate(6)
    assert len(timeline) == 6
    with pytest.raises(IndexError):
        timeline.snapshot(6)
    snap = timeline.snapshot(5)
    timeline.append(TimelinePoint(6, "statement", 1), snap)
    assert timeline.snapshot(6).tensors["w"] is snap.tensors["w"]


def test_snapshot_copies_are_private_and_read_only():
    w = torch.ones(3, requires_grad=True)
    snap = capture({"w": w}, None)
    w._data[0] = 5.0
    assert snap.tensors["w"].value[0] == 1.0
    with pytest.raises(ValueError):
        snap.tensors["w"].value[0] = 2.0
