"""README's first screen shows a real answer: the COMPAS command and the first lines it prints. This runs the
command as README writes it (``$DATA`` = the shared data folder) and checks that it prints those lines now, so
the example cannot drift from the program."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from aif360_subjective.cli import main

README = Path(__file__).resolve().parents[1] / "README.md"

pytestmark = [pytest.mark.data, pytest.mark.slow]


def _example() -> tuple[list[str], list[str]]:
    """The first ``console`` block of README: the command's arguments and the lines shown, up to the ``...``."""
    block = re.search(r"```console\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.DOTALL)
    assert block, "README has no ```console block"
    command, *shown = block.group(1).splitlines()
    assert command.startswith("$ aif360-subjective "), command
    assert shown[-1] == "...", "the example ends with '...' (the command prints more)"
    return shlex.split(command[len("$ aif360-subjective "):]), shown[:-1]


def test_readme_example_prints_what_readme_shows(capsys, shared_data):
    argv, shown = _example()
    assert len(shown) >= 3
    argv = [a.replace("$DATA", str(shared_data)) for a in argv]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    printed = out.splitlines()
    assert printed[:len(shown)] == shown, "README's example is stale: paste the command's first lines again"
