"""Recorder benchmark: record a ResNet-sized torch graph, write it, open it (a script; prints).

    python tests/benchmarks/bench_record.py [--repeat 3]

Models are built from plain layers (tests/engine/record/plain_resnet.py): ``resnet18`` has
ResNet-18's layers and widths (11M parameters, ~200 graph nodes), ``deep`` 64 basic blocks at
small widths (~1,300 nodes). Input 1x3x32x32, one thread (the machine is shared). Columns: plain
forward+backward without the recorder; forward under a ModuleWatcher; backward with hooks plus
the conversion to graph-file data; writing the .gstep (encode, validate, atomic write); loading
it and building the graph model; the replay steps. Best of ``--repeat`` runs, wall clock.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests", "engine", "record"))

import torch

import engine.record as record
from tests.engine.record.plain_resnet import deep_resnet, resnet18


def _timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def run(make, path):
    torch.manual_seed(0)
    model = make()
    x = torch.linspace(-1, 1, 3 * 32 * 32).reshape(1, 3, 32, 32)
    target = torch.tensor([3])

    def plain():
        torch.nn.functional.cross_entropy(model(x), target).backward()

    t_plain, _ = _timed(plain)

    def forward():
        with record.ModuleWatcher(model):
            return torch.nn.functional.cross_entropy(model(x), target)

    t_fwd, loss = _timed(forward)

    def rec():
        r = record.Recording(loss, model=model)
        r.backward()
        return r.to_recorded()

    t_rec, recorded = _timed(rec)
    t_write, _ = _timed(lambda: record.write(path, recorded))
    t_load, graph = _timed(lambda: record.recorded_graph(path))
    t_replay, steps = _timed(lambda: record.replay_steps(graph))
    return {
        "nodes": graph.number_of_nodes(), "edges": graph.number_of_edges(),
        "steps": len(steps), "plain": t_plain, "forward": t_fwd, "record": t_rec,
        "write": t_write, "load": t_load, "replay": t_replay,
        "MiB": os.path.getsize(path) / 2**20,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(1)
    cols = ["nodes", "edges", "steps", "plain", "forward", "record", "write", "load", "replay",
            "MiB"]
    print(f"{'model':10}" + "".join(f"{c:>9}" for c in cols))
    with tempfile.TemporaryDirectory() as folder:
        for name, make in (("resnet18", resnet18), ("deep", deep_resnet)):
            runs = [run(make, os.path.join(folder, f"{name}.gstep")) for _ in range(args.repeat)]
            best = {c: min(r[c] for r in runs) for c in cols}
            cells = "".join(f"{best[c]:>9d}" if isinstance(best[c], int) else f"{best[c]:>9.2f}"
                            for c in cols)
            print(f"{name:10}{cells}")
    print(f"times in seconds (best of {args.repeat}); record = backward with hooks + conversion")


if __name__ == "__main__":
    main()
