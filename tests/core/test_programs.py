"""Finding installed programs: the interpreter's own bin first, then PATH."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from hub.core.io.programs import find_program, resolve_program, which_program


def test_a_sibling_of_the_interpreter_comes_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    python = Path(sys.executable)
    assert which_program(python.name) == str(python.parent / python.name)


def test_then_path_then_nothing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    tool = tmp_path / "hub-test-tool-xyz"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert which_program(tool.name) == str(tool)
    assert which_program("hub-no-such-program-xyz") is None
    assert find_program("hub-no-such-program-xyz") == "hub-no-such-program-xyz"


def test_resolve_program_takes_paths_and_names(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    tool = tmp_path / "hub-test-tool-xyz"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    plain = tmp_path / "plain"
    plain.write_text("#!/bin/sh\n")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert resolve_program(str(tool)) == str(tool)
    assert resolve_program(tool.name) == str(tool)
    for missing in (str(plain), str(tmp_path), str(tmp_path / "nothing"), "hub-no-such-xyz"):
        assert resolve_program(missing) is None
