"""``engine`` never imports Qt: importing it and every subpackage loads no PySide6, shiboken6 or
pyqtgraph module (checked in a fresh interpreter, so the test process's imports don't count)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = r"""
import importlib, json, pkgutil, sys
import engine
failed = []
for info in pkgutil.walk_packages(engine.__path__, "engine."):
    try:
        importlib.import_module(info.name)
    except Exception as e:  # a broken module is reported, not hidden
        failed.append(f"{info.name}: {type(e).__name__}: {e}")
qt = sorted(m for m in sys.modules
            if m.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6"))
imported = sorted(m for m in sys.modules if m == "engine" or m.startswith("engine."))
print(json.dumps({"qt": qt, "imported": imported, "failed": failed}))
"""


def _probe() -> dict:
    result = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True,
                            text=True, timeout=300, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_engine_and_all_subpackages_import_without_qt():
    report = _probe()
    assert report["qt"] == [], f"engine pulled in Qt: {report['qt']}"
    assert report["failed"] == []
    # the walk really imported the subpackages, not just the top level
    assert {"engine.ops.table", "engine.autograd.backward", "engine.tensor_format"} <= set(
        report["imported"])


def test_the_probe_detects_qt():
    """The probe would notice a Qt import (guards against a vacuous check)."""
    code = "import sys, json; import PySide6.QtCore; print(json.dumps(sorted(m for m in " \
           "sys.modules if m.startswith('PySide6'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, check=True)
    assert "PySide6.QtCore" in json.loads(out.stdout)
