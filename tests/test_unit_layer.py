"""The unit layer's guard (tests/conftest.py): a test not marked ``system`` that starts a
process or opens a socket fails, even when the code under test catches the refusal."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys

import pytest

from tests.conftest import UnitLayerViolation, unit_layer_guard


class _UnitTest:
    """What the guard reads of a test item: no ``system`` marker, a node id."""

    nodeid = "tests/planted.py::test_planted"

    def get_closest_marker(self, name: str) -> None:
        return None


def test_a_child_process_is_refused_and_fails_the_test() -> None:
    with (
        pytest.raises(pytest.fail.Exception, match="started a child process"),
        unit_layer_guard(_UnitTest()),  # type: ignore[arg-type]
        pytest.raises(UnitLayerViolation),
    ):
        subprocess.run([sys.executable, "-c", "pass"], check=False)


def test_a_refusal_the_code_catches_still_fails_the_test() -> None:
    with (
        pytest.raises(pytest.fail.Exception, match="bound a socket"),
        unit_layer_guard(_UnitTest()),  # type: ignore[arg-type]
        socket.socket() as sock,
        contextlib.suppress(UnitLayerViolation),  # caught, as a server under test might
    ):
        sock.bind(("127.0.0.1", 0))


def test_memory_and_socketpairs_are_allowed() -> None:
    with unit_layer_guard(_UnitTest()):  # type: ignore[arg-type]
        left, right = socket.socketpair()  # trio's own wake-up sockets are pairs
        left.close()
        right.close()


@pytest.mark.system
def test_a_system_test_may_start_a_process() -> None:
    assert subprocess.run([sys.executable, "-c", "pass"], check=False).returncode == 0
