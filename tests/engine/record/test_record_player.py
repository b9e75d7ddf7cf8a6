"""The replay player: a recorded backward stepped node by node, as the window drives a session.

The first tests use a small hand-written recording (no torch needed); the last ones record real
PyTorch training (skipped without torch).
"""

from __future__ import annotations

import numpy as np
import pytest

import engine.files as files
from engine.files import Recorded, RecordedEdge, RecordedNode, SavedState, SavedTensor
from engine.record import graph_at_step, replay_steps
from engine.record.player import RecordedSession

W = np.array([1.0, 2.0], np.float32)
W_GRAD = np.array([2.0, 4.0], np.float32)


def _tiny(iterations=()) -> Recorded:
    """w -> AccumulateGrad -> MulBackward0 -> loss, as ``loss = w * w`` records (grad 2w)."""
    leaf = dict(name="w", is_leaf=True, requires_grad=True, retains_grad=False, shape=[2],
                dtype="torch.float32", group="model.fc")
    nodes = [
        RecordedNode("t:w", "tensor", "w", leaf, value=W, grad=W_GRAD),
        RecordedNode("t:w/AccumulateGrad", "accumulate", "AccumulateGrad",
                     {"node_name": "torch::autograd::AccumulateGrad", "executed_index": 1,
                      "variable": "t:w", "group": "model.fc"}),
        RecordedNode("loss/grad_fn:MulBackward0", "function", "MulBackward0",
                     {"node_name": "MulBackward0", "executed_index": 0, "group": "model.fc",
                      "next_functions": [["t:w/AccumulateGrad", 0], ["t:w/AccumulateGrad", 0]]}),
        RecordedNode("t:loss", "tensor", "loss",
                     dict(name="loss", is_leaf=False, requires_grad=True, retains_grad=False,
                          shape=[2], dtype="torch.float32"),
                     value=W * W),
    ]
    edges = [RecordedEdge("t:w", "t:w/AccumulateGrad"),
             RecordedEdge("t:w/AccumulateGrad", "loss/grad_fn:MulBackward0", W),
             RecordedEdge("t:w/AccumulateGrad", "loss/grad_fn:MulBackward0", W),
             RecordedEdge("loss/grad_fn:MulBackward0", "t:loss", np.ones(2, np.float32))]
    return Recorded(nodes, edges, ["t:w"], list(iterations))


def _events(player):
    seen = []
    player.subscribe(seen.append)
    return seen


def test_it_opens_finished_with_the_whole_recording():
    player = RecordedSession(_tiny())
    events = _events(player)
    player.open()
    assert player.status == "finished"
    assert [e.kind for e in events] == ["finished", "timeline_changed"]
    np.testing.assert_array_equal(events[0].snapshot.tensors["w"].grad, W_GRAD)
    assert player.graph().nodes["t:w"]["grad"] is not None
    assert player.step_into() is None and player.status == "finished"  # the end: no-op


def test_steps_follow_replay_steps_and_write_the_recorded_grads():
    recorded = _tiny()
    expected = replay_steps(recorded)
    player = RecordedSession(recorded)
    events = _events(player)
    player.restart()
    assert player.position.backward_step == (0, 2)
    assert player.snapshot().tensors["w"].grad is None  # nothing written before the backward
    order, written = [], {}
    while player.step_into() is not None:
        step = player.current_step
        order.append(step.node_id)
        for leaf, grad in step.leaf_writes:
            written[leaf] = grad
        assert player.position.backward_step == (len(order), 2)
        paused = events[-1]
        assert paused.kind == "paused" and paused.pause.step is step
        assert [s.node_id for s in paused.diff.backward_steps] == [step.node_id]
        graph = player.graph()
        assert graph.graph["replay_step"] == len(order)
    assert order == [s.node_id for s in expected]
    np.testing.assert_array_equal(written["t:w"], W_GRAD)
    assert events[-1].kind == "finished" and player.status == "finished"
    np.testing.assert_array_equal(player.snapshot().tensors["w"].grad, W_GRAD)


def test_go_back_and_the_changed_nodes():
    player = RecordedSession(_tiny())
    player.restart()
    player.step_into()
    player.step_into()
    after_two = player.graph()
    player.go_to(1)
    back = player.graph(after_two)
    assert player.position.backward_step == (1, 2)
    assert back.nodes["t:w"]["grad"] is None  # its accumulator has not run at step 1
    assert set(back.graph["changed"]) == {"t:w", "t:w/AccumulateGrad"}
    expected = graph_at_step(after_two, 1)
    for node_id, attrs in expected.nodes(data=True):
        assert back.nodes[node_id].get("executed") == attrs.get("executed")
    player.step_out()  # to the end of this backward
    assert player.position.backward_step == (2, 2)


def test_iterations_timeline_and_data_breakpoints():
    states = [SavedState(i, {"w": SavedTensor(W + i, W_GRAD * (i + 1), True),
                             "loss": SavedTensor(np.float32(3 - i), None, True)})
              for i in range(3)]
    player = RecordedSession(_tiny(states))
    assert len(player.timeline) == 3 * 3 + 1 and player.losses == [(0, 3.0), (1, 2.0), (2, 1.0)]
    player.restart()
    player.next_iteration()
    assert player.position.iteration == 1 and player.position.backward_step == (0, 2)
    np.testing.assert_array_equal(player.snapshot().tensors["w"].value, W + 1)
    player.step_into()
    player.step_into()  # the accumulator: iteration 1's grad is written
    np.testing.assert_array_equal(player.current_step.leaf_writes[0][1], W_GRAD * 2)
    assert player.counters.backward == 2
    player.break_on_backward(True)
    player.continue_()
    assert player.position.iteration == 2 and player.position.backward_step == (0, 2)
    player.break_on_backward(False)
    player.break_on_grad_norm(1.0)
    player.continue_()
    assert player.position.backward_step == (2, 2)  # the accumulator wrote a large grad
    player.continue_()
    assert player.status == "finished"


def test_timeline_points_are_the_dataclass_points():
    """The replay's points are made without the dataclass's __init__: they must still equal (and
    hash as) points made the ordinary way, field for field, read one by one or listed."""
    from engine.record.timeline import ReplayTimeline
    from engine.session.timeline import BACKWARD, STEP, TimelinePoint

    timeline = ReplayTimeline(2, 2, [True, False])
    expected = [TimelinePoint(i * 3 + k, "backward_step", None, i, (k, 2),
                              frozenset({BACKWARD} if k == 1 else {STEP} if k == 0 and i else ()),
                              i * 3 + k)
                for i in range(2) for k in range(3)]
    expected.append(TimelinePoint(6, "finished", None, None, None, frozenset(), 6,
                                  reason="finished"))
    single = [timeline[i] for i in range(len(timeline))]
    assert single == expected and list(timeline) == expected and list(timeline) == expected
    assert [hash(p) for p in single] == [hash(p) for p in expected]
    assert [vars(p) for p in timeline] == [vars(p) for p in expected]
    assert timeline[-1] == expected[-1] and timeline[2:4] == expected[2:4]


@pytest.mark.parametrize("steps, iterations, stepped", [
    (2, 2, [True, False]), (3, 3, [True, True, False]), (1, 0, []), (0, 2, [True, True]),
    (4, 3, [False, True, True])])
def test_the_marked_points_are_those_listing_the_marker(steps, iterations, stepped):
    from engine.record.timeline import ReplayTimeline
    from engine.session.timeline import BACKWARD, STEP

    for marker in (BACKWARD, STEP, "warning", "nan"):
        timeline = ReplayTimeline(steps, iterations, stepped)  # (marked() before iterating)
        got = timeline.marked(marker)
        assert got == [p for p in timeline if marker in p.markers], marker


def test_each_step_keeps_the_layout_without_comparing_edges_and_a_fold_has_its_own():
    """The replay's graphs carry one token for the recording's edges (graph.layout.STRUCTURE),
    so the layout of one step is the layout of every step; a folded graph has other edges and
    drops the token, and a graph of other edges never reuses a layout through it."""
    from engine.graph import fold, layout
    from engine.graph.layout import STRUCTURE

    player = RecordedSession(_tiny())
    at_end = player.graph()
    first = layout(at_end)
    player.restart()
    before = player.graph()
    assert before.graph[STRUCTURE] is at_end.graph[STRUCTURE]
    assert layout(before, first) is first
    folded = fold(before, "model.fc")
    assert STRUCTURE not in folded.graph and layout(folded, first) is not first
    other = RecordedSession(_tiny()).graph()  # the same ids and edges, another recording
    assert layout(other, first) is not first


def test_stop_ends_the_replay():
    player = RecordedSession(_tiny())
    events = _events(player)
    player.restart()
    player.stop()
    assert player.status == "stopped"
    assert events[-1].kind == "finished" and events[-1].stopped


# -- real PyTorch ------------------------------------------------------------------------------
def test_a_recorded_training_run_replays_torchs_grads(tmp_path):
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    import engine.record as record

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(5, 3), torch.randn(5, 1)
    path = tmp_path / "run.gstep"
    seen = []
    with record.session(path, model=model, optimizer=opt, model_prefix="model"):
        for _ in range(2):
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            seen.append({f"model.{n}": p.grad.numpy().copy() for n, p in model.named_parameters()})
            opt.step()
    gf = files.load(path)
    player = RecordedSession(gf)
    expected = [s.node_id for s in replay_steps(gf)]
    player.restart()
    for iteration, grads in enumerate(seen):
        order, written = [], {}
        while True:
            player.step_into()
            if player.status != "paused" or player.position.backward_step[0] == 0:
                break
            order.append(player.current_step.node_id)
            written.update(player.current_step.leaf_writes)
        assert order == expected, iteration
        for name, grad in grads.items():
            np.testing.assert_array_equal(written[f"t:{name}"], grad)
            np.testing.assert_array_equal(player.snapshot(
                player.point_index - (player.status == "paused")).tensors[name].grad, grad)
