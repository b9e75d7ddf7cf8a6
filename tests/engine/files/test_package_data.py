"""A wheel of gradstep carries ``resources/`` (examples, icons, styles, schema) as package data,
and the installed code finds them through ``resources.path`` rather than the source checkout.

The wheel is built offline from a copy of the project (``pip wheel --no-build-isolation
--no-index``, with the setuptools of the test environment), so the shared working tree gets no
``build/`` folder. Where a C compiler and Python's headers are there, the wheel also carries the
compiled normal fill (engine/_native/fill.c, an optional extension), and it loads from there.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
BUNDLED = {  # folder in resources/ -> pattern of the files a wheel must carry
    "examples": "*.gstep", "icons": "*.svg", "styles": "*.qss",
}


def _checkout_files() -> set[str]:
    names = {"resources/__init__.py", "resources/gstep.schema.json"}
    for folder, pattern in BUNDLED.items():
        found = (ROOT / "resources" / folder).glob(pattern)
        names |= {f"resources/{folder}/{p.name}" for p in found}
    return names


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    pytest.importorskip("setuptools", minversion="77",
                        reason="building the wheel offline needs setuptools>=77 (the test extra)")
    base = tmp_path_factory.mktemp("wheel")
    src = base / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, src / name)
    # a kernel built in place in the checkout stays out: the wheel's is compiled from fill.c
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "*.gstep.tmp", "*.so",
                                    "*.pyd")
    for name in ("engine", "app", "resources"):
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    out = base / "dist"
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
         "--disable-pip-version-check", "-q", "-w", str(out), str(src)],
        capture_output=True, text=True, timeout=600, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    (built,) = out.glob("gradstep-*.whl")
    return built


def test_the_checkout_has_what_the_issue_lists():
    """Guards the comparison below against an empty or moved resources/ folder."""
    names = _checkout_files()
    assert len([n for n in names if n.startswith("resources/examples/")]) == 15
    assert "resources/icons/app.svg" in names
    assert {"resources/styles/light.qss", "resources/styles/dark.qss"} <= names


def test_wheel_holds_every_example_icon_style_and_the_schema(wheel):
    with zipfile.ZipFile(wheel) as z:
        inside = set(z.namelist())
        schema = json.loads(z.read("resources/gstep.schema.json"))
    missing = sorted(_checkout_files() - inside)
    assert missing == []
    assert len([n for n in inside if n.startswith("resources/examples/")
                and n.endswith(".gstep")]) == 15
    assert isinstance(schema, dict) and schema
    assert "engine/files/gallery.py" in inside and "app/icons.py" in inside
    assert not [n for n in inside if n.startswith("tests/")]


def test_wheel_metadata_names_the_license_and_the_entry_point(wheel):
    with zipfile.ZipFile(wheel) as z:
        meta_dir = next(n.split("/")[0] for n in z.namelist() if ".dist-info/" in n)
        metadata = z.read(f"{meta_dir}/METADATA").decode()
        entry_points = z.read(f"{meta_dir}/entry_points.txt").decode()
        inside = set(z.namelist())
    assert "License-Expression: MIT AND BSD-3-Clause" in metadata
    assert f"{meta_dir}/licenses/LICENSE" in inside
    assert "gradstep = app.__main__:main" in entry_points


def _can_compile() -> bool:
    cc = (sysconfig.get_config_var("CC") or "").split()
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    return bool(cc) and shutil.which(cc[0]) is not None and headers.is_file()


def _kernels(names) -> list[str]:
    return [n for n in names if n.startswith("engine/_native/fill.")
            and n.endswith((".so", ".pyd"))]


def test_wheel_carries_the_compiled_fill_where_it_can_be_built(wheel):
    with zipfile.ZipFile(wheel) as z:
        inside = z.namelist()
    assert "engine/_native/__init__.py" in inside
    if not _can_compile():
        pytest.skip("no C compiler or Python headers: the optional kernel is left out")
    assert len(_kernels(inside)) == 1, sorted(n for n in inside if "_native" in n)


def test_unpacked_wheel_finds_its_own_resources_from_another_folder(wheel, tmp_path):
    """The installed code looks in the installed package, not next to a checkout."""
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as z:
        z.extractall(site)
    probe = (
        "import json, resources\n"
        "from engine.files import example_paths, load\n"
        "paths = example_paths()\n"
        "load(paths[0])\n"
        "import engine, engine._native\n"
        "engine.manual_seed(0)\n"
        "print(json.dumps({'resources': str(resources.path()), 'examples': len(paths),\n"
        "    'first': str(paths[0]), 'icon': resources.path('icons', 'app.svg').is_file(),\n"
        "    'schema': resources.path('gstep.schema.json').is_file(),\n"
        "    'kernel': engine._native.built(), 'engine': engine.__file__,\n"
        "    'randn': engine.randn(20).tolist()}))\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = subprocess.run([sys.executable, "-c", probe], cwd=elsewhere, capture_output=True,
                            text=True, timeout=300, env={"PYTHONPATH": str(site), "PATH": ""},
                            check=False)
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout.strip().splitlines()[-1])
    assert Path(found["resources"]) == site / "resources"
    assert found["examples"] == 15
    assert Path(found["first"]).parent == site / "resources" / "examples"
    assert found["icon"] and found["schema"]
    assert Path(found["engine"]).parent == site / "engine"
    # the wheel's compiled kernel (if it has one) loads there, and draws as the checkout does
    with zipfile.ZipFile(wheel) as z:
        assert found["kernel"] == bool(_kernels(z.namelist()))
    import engine

    engine.manual_seed(0)
    assert found["randn"] == engine.randn(20).tolist()
