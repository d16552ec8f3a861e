"""``hub demo`` tells a story: the installed command, run as a user runs it, gives every game a
narrated tour (numbered headings, each with a sentence or two), pairs each ``hub engine``
command with its replies, draws Kalah as boards rather than protocol, and says that the lowest
score wins at clubs. ``make demo`` echoes none of make's recipe lines."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections import defaultdict
from pathlib import Path

import pytest

from hub.core.io.output import Output
from hub.declared.plugin import discover_games
from hub.games.kalah.demo import run_demo
from tests.conftest import program

pytestmark = pytest.mark.e2e

HEADING = re.compile(r"^== (?P<game>[a-z]+) (?P<step>\d+)/(?P<steps>\d+): \S")
STORES = re.compile(r"^\[ *\d+\] +\[ *\d+\]$")
"""The middle line of a Kalah board: the two stores."""
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> subprocess.CompletedProcess[str]:
    """One run of the whole installed ``hub demo`` (its games recorded in a test database)."""
    env = {**os.environ, "HUB_DB": str(tmp_path_factory.mktemp("demo") / "games.db")}
    return subprocess.run(
        [program("hub"), "demo"], capture_output=True, text=True, timeout=120, check=False, env=env
    )


def sections(stdout: str) -> dict[str, list[str]]:
    """Each game's lines, from its first heading to the next game's."""
    found: dict[str, list[str]] = defaultdict(list)
    game = ""
    for line in stdout.splitlines():
        if match := HEADING.match(line):
            game = match["game"]
        found[game].append(line)
    return found


def test_the_demo_exits_0_without_a_traceback(demo: subprocess.CompletedProcess[str]) -> None:
    assert demo.returncode == 0, demo.stderr
    assert "Traceback" not in demo.stdout + demo.stderr


def test_every_game_is_a_numbered_tour_with_narration(
    demo: subprocess.CompletedProcess[str],
) -> None:
    lines = demo.stdout.splitlines()
    steps: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for index, line in enumerate(lines):
        if match := HEADING.match(line):
            steps[match["game"]].append((int(match["step"]), int(match["steps"])))
            assert lines[index - 1] == "", "a blank line before each heading"
            assert re.match(r"^   \S", lines[index + 1]), f"no narration after {line!r}"
    offering = sorted(name for name, plugin in discover_games().items() if plugin.demo is not None)
    assert sorted(steps) == offering
    for game, seen in steps.items():
        total = seen[0][1]
        assert total >= 2, game
        assert seen == [(number, total) for number in range(1, total + 1)], game


def test_each_engine_command_is_followed_by_its_replies(
    demo: subprocess.CompletedProcess[str],
) -> None:
    chess = sections(demo.stdout)["chess"]

    def at(line: str, after: int = 0) -> int:
        return next(i for i in range(after, len(chess)) if chess[i].startswith(line))

    order = [
        "> uci",
        "id name ",
        "uciok",
        "> isready",
        "readyok",
        "> position startpos",
        "> d",
        "Fen: ",
        "Checkers:",
        "> go depth 4",
        "info depth 1 ",
        "bestmove ",
        "> quit",
    ]
    positions = []
    for line in order:
        positions.append(at(line, positions[-1] + 1 if positions else 0))
    assert positions == sorted(positions)
    # nothing of the engine's between a command and the narration of the next one
    assert chess[at("> isready") + 1] == "readyok"
    assert chess[at("> position startpos") + 1].startswith("   ")


def test_kalah_is_drawn_as_boards_not_protocol(demo: subprocess.CompletedProcess[str]) -> None:
    kalah = sections(demo.stdout)["kalah"]
    assert sum(bool(STORES.match(line)) for line in kalah) >= 3  # the start, moves, the end
    turn = re.compile(r"^ *\d+\. (client|server) \((North|South)\) (sows \d|takes the pie)")
    assert sum(bool(turn.match(line)) for line in kalah) >= 10
    assert any(re.match(r"^(client|server) wins \d+-\d+$|^tie, \d+-\d+$", line) for line in kalah)
    protocol = re.compile(r"^(S|C): |^(WELCOME|READY|BEGIN|OK|INFO \d|WINNER|LOSER|TIE)$")
    assert not [line for line in kalah if protocol.match(line)]


def test_clubs_says_that_the_lowest_score_wins(demo: subprocess.CompletedProcess[str]) -> None:
    clubs = sections(demo.stdout)["clubs"]
    text = "\n".join(clubs)
    assert "lowest score" in text and "wins" in text
    winners = next(line for line in clubs if line.startswith("Winner(s): "))
    verdict = next(line for line in clubs if line.startswith("   Final scores "))
    assert verdict.endswith(f"{winners.removeprefix('Winner(s): ')}, with the fewest points.")


def test_uqchess_ends_in_checkmate_for_both_clients(
    demo: subprocess.CompletedProcess[str],
) -> None:
    uqchess = sections(demo.stdout)["uqchess"]
    assert "  white| gameover checkmate black" in uqchess
    assert "  black| gameover checkmate black" in uqchess


def test_the_uqchess_demo_needs_no_stockfish(records_database: Path) -> None:
    """Without Stockfish ($UQCHESS_ENGINE empty) it runs ``hub serve uqchess``, which falls
    back to the built-in engine."""
    result = subprocess.run(
        [program("hub"), "demo", "uqchess"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "UQCHESS_ENGINE": ""},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "$ hub serve uqchess\n" in result.stdout
    assert "using the built-in engine (hub engine)" in result.stdout
    assert "  black| gameover checkmate black\n" in result.stdout


async def test_the_kalah_story_is_the_same_every_time() -> None:
    told = []
    for _ in range(2):
        with tempfile.TemporaryFile() as file:
            assert await run_demo(Output(file.fileno())) == 0
            file.seek(0)
            told.append(file.read().decode())
    assert told[0] == told[1]
    assert "== kalah 4/4: the end\n" in told[0]


def test_make_demo_echoes_no_recipe_line(tmp_path: Path) -> None:
    """``make demo`` on a fresh clone: the venv set-up says one line on stderr, and stdout
    is the demo alone (fake python and hub stand in for the real ones)."""
    make = shutil.which("make")
    if make is None:
        pytest.skip("make is not installed")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, script in (("python", "exit 0"), ("hub", 'echo "the demo: $*"')):
        path = bin_dir / name
        path.write_text(f"#!/bin/sh\n{script}\n")
        path.chmod(0o755)
    result = subprocess.run(
        [
            make,
            "--no-print-directory",
            "-C",
            str(ROOT),
            f"PYTHON={bin_dir / 'python'}",
            f"BIN={bin_dir}",
            f"VENV={tmp_path / 'venv'}",
            f"STAMP={tmp_path / 'installed'}",
            "demo",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "the demo: demo\n"
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("setting up ")
    assert (tmp_path / "installed").exists()
