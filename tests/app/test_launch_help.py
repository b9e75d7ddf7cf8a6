"""``gradstep --help`` (the window's command line) lists the subcommands that need no display."""

from __future__ import annotations

import pytest

from app.launch import _parse
from engine.cli import COMMANDS


def test_the_window_help_lists_every_subcommand(capsys):
    with pytest.raises(SystemExit) as done:
        _parse(["--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    for name, description in COMMANDS.items():
        assert f"gradstep {name}" in text and description.split()[0] in text
    assert {"run", "record", "export"} <= set(COMMANDS)
