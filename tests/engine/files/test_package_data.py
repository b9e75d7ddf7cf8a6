"""A wheel of gradstep carries ``resources/`` (examples, icons, styles, schema) as package data,
and the installed code finds them through ``resources.path`` rather than the source checkout.

The wheel is built offline from a copy of the project (``pip wheel --no-build-isolation
--no-index``, with the setuptools of the test environment), so the shared working tree gets no
``build/`` folder.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
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
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "*.gstep.tmp")
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
        "print(json.dumps({'resources': str(resources.path()), 'examples': len(paths),\n"
        "    'first': str(paths[0]), 'icon': resources.path('icons', 'app.svg').is_file(),\n"
        "    'schema': resources.path('gstep.schema.json').is_file()}))\n")
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
