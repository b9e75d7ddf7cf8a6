"""Building-by-pointing benchmarks (issue 8); prints numbers, asserts nothing.

Run: ``QT_QPA_PLATFORM=offscreen python tests/benchmarks/bench_builder.py``.

- the palette: checking every op of the catalog for a selection (a dry run of each in the
  engine), side by side with PyTorch doing the same calls on tensors of the same shapes;
- describe(): the workspace the worker builds after every command, per named tensor;
- a gesture in the window, from "Apply" to the new line's node drawn, side by side with the
  floor: running the same script headless (engine.script.run) once.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("GRADSTEP_RECOVERY_DIR", tempfile.mkdtemp(prefix="gradstep-bench-"))
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def best_of(fn, repeat: int = 7, number: int = 1) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return min(times)


def bench_palette() -> None:
    import engine.script
    from engine.builder.catalog import CATALOG
    from engine.builder.check import palette
    from engine.builder.workspace import describe

    try:
        import torch
        import torch.nn.functional as F
    except ImportError:  # pragma: no cover - the floor needs torch
        torch = None
    print("palette: every op checked for a selection (dry runs), engine vs PyTorch")
    for n in (3, 100, 1000):
        src = (f"import torch\na = torch.zeros({n}, {n}, requires_grad=True)\n"
               f"b = torch.zeros({n}, {n})\n")
        ws = describe(engine.script.run(src), src)
        from engine.builder import check

        def cold(ws=ws):
            check._VERDICTS.clear()  # every op dry-run again, as for a new layout
            palette(ws, ["a", "b"])

        cold()  # warm-up
        ours = best_of(cold, repeat=5)
        cached = best_of(lambda ws=ws: palette(ws, ["a", "b"]), repeat=5)
        line = (f"  {n}x{n} and {n}x{n}: {ours * 1e3:7.2f} ms for {len(CATALOG)} ops "
                f"({cached * 1e3:5.2f} ms when the layout was seen)")
        if torch is not None:
            ta = torch.zeros(n, n, requires_grad=True)
            tb = torch.zeros(n, n)
            calls = _torch_calls(torch, F)

            def theirs(calls=calls, ta=ta, tb=tb):
                for call in calls:
                    try:
                        call(ta, tb)
                    except Exception:
                        pass

            theirs()
            floor = best_of(theirs, repeat=5)
            line += f"   torch {floor * 1e3:7.2f} ms   ratio {ours / floor:5.2f}x"
        print(line)


def _torch_calls(torch, F):
    """The same calls the catalog's dry runs make, spelt in torch (a representative set)."""
    return [
        lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: a / b,
        lambda a, b: a ** b, lambda a, b: -a, torch.exp and (lambda a, b: torch.exp(a)),
        lambda a, b: torch.log(a), lambda a, b: torch.sqrt(a), lambda a, b: torch.abs(a),
        lambda a, b: torch.sin(a), lambda a, b: torch.cos(a), lambda a, b: torch.reciprocal(a),
        lambda a, b: torch.square(a), lambda a, b: torch.log1p(a), lambda a, b: torch.expm1(a),
        lambda a, b: torch.clamp(a), lambda a, b: a.sum(), lambda a, b: a.mean(),
        lambda a, b: a.prod(), lambda a, b: a.var(), lambda a, b: a.std(),
        lambda a, b: a.cumsum(dim=0), lambda a, b: a.max(), lambda a, b: a.min(),
        lambda a, b: a.norm(), lambda a, b: a @ b, lambda a, b: torch.mm(a, b),
        lambda a, b: torch.mv(a, b), lambda a, b: torch.dot(a, b), lambda a, b: a.t(),
        lambda a, b: a.reshape(-1), lambda a, b: a.view(-1), lambda a, b: a.transpose(0, 1),
        lambda a, b: a.permute(1, 0), lambda a, b: a.squeeze(), lambda a, b: a.unsqueeze(0),
        lambda a, b: a.flatten(), lambda a, b: torch.cat([a, b], dim=0),
        lambda a, b: torch.stack([a, b], dim=0), lambda a, b: a.clone(),
        lambda a, b: F.relu(a), lambda a, b: torch.sigmoid(a), lambda a, b: torch.tanh(a),
        lambda a, b: F.softmax(a, dim=-1), lambda a, b: F.log_softmax(a, dim=-1),
        lambda a, b: F.leaky_relu(a), lambda a, b: F.gelu(a), lambda a, b: F.silu(a),
        lambda a, b: F.elu(a), lambda a, b: F.softplus(a), lambda a, b: F.mse_loss(a, b),
        lambda a, b: F.l1_loss(a, b), lambda a, b: F.cross_entropy(a, b),
        lambda a, b: F.nll_loss(a, b), lambda a, b: F.binary_cross_entropy(a, b),
        lambda a, b: F.binary_cross_entropy_with_logits(a, b),
    ]


def bench_describe() -> None:
    import engine.script
    from engine.builder.workspace import describe

    print("describe(): the builder's workspace after every command")
    for count in (10, 100, 1000):
        src = ("import torch\n"
               f"ts = [torch.ones(3, requires_grad=True) * i for i in range({count})]\n")
        ns = engine.script.run(src)
        took = best_of(lambda ns=ns, src=src: describe(ns, src), repeat=5)
        print(f"  {count:5d} named tensors: {took * 1e3:7.2f} ms  "
              f"({took / count * 1e6:5.1f} µs each)")


def bench_gesture() -> None:
    from PySide6.QtCore import QCoreApplication, QEventLoop, QSettings
    from PySide6.QtWidgets import QApplication

    import engine.script
    from app.main_window import MainWindow
    from engine.builder.catalog import BY_ID
    from engine.builder.check import apply_op

    app = QApplication.instance() or QApplication(sys.argv)
    settings = QSettings(str(Path(tempfile.mkdtemp()) / "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings, open_demo=False)
    window.ask_before_discarding = False
    window.show()
    window.ensure_panels()
    scripts = {
        "seed demo": "import torch\n\nx = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
                     "y = x * x\n",
        "MLP, 100 training iterations": (
            "import torch\nimport torch.nn.functional as F\n\n"
            "X = torch.rand(64, 8)\nY = torch.rand(64, 1)\n"
            "W1 = torch.rand(8, 32, requires_grad=True)\n"
            "W2 = torch.rand(32, 1, requires_grad=True)\n"
            "optimizer = torch.optim.SGD([W1, W2], lr=0.01)\n"
            "for iteration in range(100):\n"
            "    optimizer.zero_grad()\n"
            "    y = F.relu(X @ W1) @ W2\n"
            "    loss = F.mse_loss(y, Y)\n"
            "    loss.backward()\n"
            "    optimizer.step()\n"),
    }
    print("a gesture: Apply -> the new line's node drawn, vs running the script headless once")
    for title, src in scripts.items():
        from engine.files import GraphFile

        window.documents.open_graph_file(GraphFile(script=src), path=None,
                                         run_to_first_breakpoint=False)
        window.controller.run_to_end()
        window.controller.wait_idle(60000)
        floor = best_of(lambda src=src: engine.script.run(src), repeat=3)
        runs = []
        for k in range(5):
            ws = window.controller.snapshot.workspace
            name = f"g{k}"
            target = "W2" if "W2" in ws.tensors else "y"
            edit = apply_op(window.editor.toPlainText(), ws, BY_ID["exp"], [target], {}, name)
            start = time.perf_counter()
            window.builder.apply(edit)
            while True:
                QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
                graph = window.controller.snapshot.graph
                if (graph is not None and f"t:{name}" in graph
                        and window.graph_view.graph is graph and not window.controller.busy):
                    break
            runs.append(time.perf_counter() - start)
        took = statistics.median(runs)
        print(f"  {title:30s}: gesture {took * 1e3:7.1f} ms   headless run {floor * 1e3:7.1f} ms"
              f"   ratio {took / floor:5.2f}x")
    window.shutdown()
    window.deleteLater()
    app.processEvents()


if __name__ == "__main__":
    from engine.gc_policy import settle_after_imports

    settle_after_imports()
    bench_palette()
    bench_describe()
    bench_gesture()
