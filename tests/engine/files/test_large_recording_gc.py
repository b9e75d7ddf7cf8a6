"""A large recording, once loaded, is out of the cyclic collector's walks (engine/gc_policy.py):
1.3 million objects per 100,000 nodes, which every later collection walked whole."""

from __future__ import annotations

import gc

import pytest

import engine.files as files
import engine.gc_policy as gc_policy
from engine.record.player import RecordedSession
from engine.record.synthetic import synthetic_recorded
from engine.record.writer import graph_file


@pytest.fixture
def text(monkeypatch):
    monkeypatch.setattr(gc_policy, "LARGE_BUILD_NODES", 150)  # "large" for this test
    text = files.dumps(graph_file(synthetic_recorded(200, iterations=2)))
    gc.unfreeze()
    yield text
    gc.unfreeze()  # what the test froze goes back to the collector


def test_a_large_recording_is_frozen_once_loaded_and_opened(text):
    gf = files.loads(text)
    frozen = gc.get_freeze_count()
    assert frozen >= len(gf.recorded.nodes)  # its nodes, their attributes, its arrays...
    assert gc.get_count()[0] < 100  # ...and nothing of it left for the next young collection
    session = RecordedSession(gf)
    assert gc.get_freeze_count() > frozen  # the graph and the snapshot too
    assert session.graph().number_of_nodes() == len(gf.recorded.nodes)


def test_a_small_one_is_left_to_the_collector(text, monkeypatch):
    monkeypatch.setattr(gc_policy, "LARGE_BUILD_NODES", 1000)
    RecordedSession(files.loads(text))
    assert gc.get_freeze_count() == 0
