"""A game that is not in the repository, written from docs/architecture.md ("Adding a game")
alone, gets every verb with no code beyond its declaration: installed as a plug-in (an entry
point in a dist-info on PYTHONPATH, as pip would install it) and driven through the real
``hub`` command: ``hub games``, ``hub play`` (a person, the AI, random, a bot program),
``hub serve`` with a bot over TCP, ``hub match``, records and ``hub games show``, the web
board.

The game is Nim with a twist that makes a turn of several moves: take 1 to 3 stones from a
heap; whoever takes exactly 3 moves again; whoever takes the last stone wins.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import program

ROOT = Path(__file__).resolve().parents[2]

NIM = textwrap.dedent(
    '''
    """Nim: take 1 to 3 stones; taking 3 moves again; the last stone wins."""
    import random

    import attrs

    from hub.core.play.game import Ai, Game, Option, Pictures
    from hub.core.model.referee import IllegalMove, Outcome


    @attrs.frozen
    class Heap:
        stones: int
        mover: int = 0
        last: int | None = None  # who took the last stone


    class NimPictures(Pictures):
        def text(self, view, names=()):
            return "heap: " + "o" * view["stones"] + f" ({view['stones']})"

        def html(self, view, names=()):
            stones = "".join(
                f'<button data-move="{n}">take {n}</button>' for n in (1, 2, 3)
            )
            return f'<div class="nim">heap of {view["stones"]} {stones}</div>'


    def best_take(game, state, level, seconds, stop):
        best = state.stones % 4
        return best if best and level > 1 else 1


    class Nim(Game[Heap, int]):
        name = "nim"
        summary = "Nim: take 1-3 stones, the last stone wins"
        options = (Option("stones", 15, "stones in the heap", low=1, high=99),)
        seat_names = ("First", "Second")
        pictures = NimPictures()
        ai = Ai(range(1, 3), best_take)

        def start(self, rng):
            return Heap(self.settings["stones"])

        def to_move(self, state):
            return None if state.stones == 0 else state.mover

        def legal_moves(self, state):
            return [n for n in (1, 2, 3) if n <= state.stones]

        def candidate_moves(self, state):
            return range(0, 5)

        def apply(self, state, move):
            if move not in self.legal_moves(state):
                raise IllegalMove(f"cannot take {move} of {state.stones}")
            again = move == 3 and state.stones > 3
            mover = state.mover if again else 1 - state.mover
            return Heap(state.stones - move, mover, state.mover)

        def outcome(self, state):
            if state.stones:
                return None
            return Outcome([1 if s == state.last else 0 for s in (0, 1)], [state.last])

        def view(self, state, seat=None):
            return {"stones": state.stones, "to_move": self.to_move(state)}
    '''
)


@pytest.fixture
def plugin_path(tmp_path: Path) -> Path:
    """Nim installed as pip would: its module and a dist-info with the entry point."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "nimgame.py").write_text(NIM)
    info = site / "nimgame-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: nimgame\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[hub.games]\nnim = nimgame:Nim\n")
    return site


def hub(
    site: Path, *args: str, stdin: str = "", timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run(
        [program("hub"), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )


def test_hub_games_lists_it_with_every_derived_verb(plugin_path: Path) -> None:
    listed = hub(plugin_path, "games")
    assert listed.returncode == 0, listed.stderr
    line = next(line for line in listed.stdout.splitlines() if line.startswith("nim "))
    assert "Nim: take 1-3 stones, the last stone wins" in line
    assert "[play, serve" in line


def test_a_person_plays_it_and_is_told_the_legal_moves(plugin_path: Path) -> None:
    done = hub(
        plugin_path, "play", "nim", "human", "ai:2", "--stones", "9", stdin="x\n4\n1\n3\n1\n"
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "nim: First: you, Second: ai:2" in out
    assert "'x' is not a move of nim" in out
    assert "legal moves: 1 2 3" in out
    assert "4 is not allowed: cannot take 4 of 9" in out  # well formed, refused by the rules
    plays = [line.partition("move: ")[2] or line for line in out.splitlines() if "plays" in line]
    assert plays == [
        "First (you) plays 1",
        "Second (ai:2) plays 1",
        "First (you) plays 3",  # took 3: a turn of two moves
        "First (you) plays 1",
        "Second (ai:2) plays 3",
    ]
    assert out.rstrip().endswith("Second (ai:2) wins")


def test_a_bot_program_plays_it_over_pipes_and_the_record_replays_it(
    plugin_path: Path, records_database: Path
) -> None:
    bot = str(ROOT / "players" / "json_bot.py")
    done = hub(plugin_path, "play", "nim", bot, "random", "--seed", "4")
    assert done.returncode == 0, done.stderr
    assert "First (json_bot.py) plays" in done.stdout
    exported = hub(plugin_path, "games", "export")
    assert exported.returncode == 0, exported.stderr
    games = [json.loads(line) for line in exported.stdout.splitlines()]
    assert [game["game"] for game in games] == ["nim"]
    assert games[0]["players"][0]["name"] == "json_bot.py"  # the name its hello gave
    shown = hub(plugin_path, "games", "show", games[0]["game_id"])
    assert shown.returncode == 0, shown.stderr
    assert "    heap: ooooooooooooooo (15)" in shown.stdout  # the game's own text picture


def test_hub_match_plays_it_with_no_kit(plugin_path: Path) -> None:
    done = hub(plugin_path, "match", "nim", "ai:2", "random:1", "--games", "4", "--stones", "21")
    assert done.returncode == 0, done.stderr
    assert "4 games" in done.stdout or "4 games" in done.stderr


@pytest.fixture
def server(plugin_path: Path) -> Iterator[tuple[subprocess.Popen[str], int]]:
    env = {**os.environ, "PYTHONPATH": str(plugin_path)}
    process = subprocess.Popen(
        [program("hub"), "serve", "nim", "--tc", "none"],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stderr is not None
        port = int(process.stderr.readline())
        yield process, port
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 130


def test_hub_serve_plays_bots_over_tcp(server: tuple[subprocess.Popen[str], int]) -> None:
    _, port = server
    bot = [sys.executable, str(ROOT / "players" / "json_bot.py"), "--connect", f"127.0.0.1:{port}"]
    against_ai = subprocess.run(
        [*bot, "--opponent", "ai:2", "--games", "2"], timeout=60, capture_output=True, check=False
    )
    assert against_ai.returncode == 0, against_ai.stderr
    pair = [
        subprocess.Popen(bot),
        subprocess.Popen([str(ROOT / "players" / "json_bot.sh"), "127.0.0.1", str(port)]),
    ]
    assert [process.wait(timeout=60) for process in pair] == [0, 0]


def test_the_web_board_draws_it_with_its_own_picture(plugin_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(plugin_path)}
    process = subprocess.Popen(
        [program("hub"), "play", "nim", "ai:1", "ai:2", "--web", "0", "--no-record"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stderr is not None
        url = process.stderr.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        said = process.stderr.readline()  # the game is over; the page stays up
        assert "stays up" in said
        with urllib.request.urlopen(url.rstrip("/") + "/api/games", timeout=10) as reply:
            games = json.load(reply)
        game_id = games["recent"][0]["id"]
        with urllib.request.urlopen(f"{url.rstrip('/')}/game/{game_id}", timeout=10) as reply:
            page = reply.read().decode()
        assert '<div class="nim">heap of 0' in page
        assert "First" in page and "Second" in page  # the game's own seat names
    finally:
        process.send_signal(signal.SIGINT)
        status = process.wait(timeout=30)
        assert status == 130, process.stderr.read() if process.stderr else ""
