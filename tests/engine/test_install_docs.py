"""The README's install and test commands are the ones CI runs, word for word (issue 12)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INSTALL = "pip install -e . && gradstep"
TEST = "pip install -e '.[test]' && pytest"


def _code_lines(text: str) -> list[str]:
    lines, inside = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            inside = not inside
        elif inside:
            lines.append(line)
    return lines


def test_readme_gives_the_two_commands_in_code_blocks():
    lines = _code_lines((ROOT / "README.md").read_text(encoding="utf-8"))
    assert INSTALL in lines and TEST in lines


def test_ci_ends_with_the_readme_test_command_after_installing_torch():
    lines = [line for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
             if line.strip()]
    assert lines[-1] == TEST
    torch_line = next(i for i, line in enumerate(lines) if "torch==2.13.0" in line)
    assert torch_line < len(lines) - 1
