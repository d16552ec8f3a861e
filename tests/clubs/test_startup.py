"""clubber must start fast: neither it nor hub/__init__.py may import trio, attrs or typing."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("trio", "attr", "attrs", "typing", "hypothesis", "chess")


@pytest.mark.parametrize(
    "module", ["hub", "hub.games.clubs.player", "hub.games.clubs.launch", "hub.entry"]
)
def test_no_heavy_imports(module: str) -> None:
    code = (
        f"import sys, {module}\n"
        f"print(' '.join(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


def test_a_game_nobody_watches_imports_no_event_type() -> None:
    """clubhub's engine, and a whole game played with an event bus nobody subscribed to,
    never import hub.core.model.events (its classes cost start-up time: hub/core/play/match.py); the
    record, asked for afterwards, does."""
    code = """
import sys, trio
import hub.games.clubs.hub
from hub.core.model.bus import EventBus
from hub.core.play.match import Match
from hub.core.play.vocabulary import BaseSeat
from tests.core.toys import Nim, NimState

class Take(BaseSeat):
    async def choose(self, turn):
        return 1

async def game():
    return await Match(Nim(), NimState(5), [Take(), Take()], events=EventBus()).run()

result = trio.run(game)
print("hub.core.model.events" in sys.modules, len(result.moves))
print(len(result.record.moves), "hub.core.model.events" in sys.modules)
"""
    done = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "5", "5", "True"]


def test_clubhubs_engine_imports_no_html() -> None:
    """The html package imports its entity table (several ms): only the clubs pictures for
    the web need it, and they import it when they draw, so clubhub never does."""
    code = "import sys, hub.games.clubs.hub; print('html' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"
