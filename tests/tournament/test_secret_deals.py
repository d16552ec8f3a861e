"""Nothing that decides a deal is public while a game runs (issue 26, item 4): ``hub match
clubs ... --web 0`` once showed each running game's ``"opening": {"order": [2, 0, 1], "cut":
6}`` at /api/game/ID, and with the public deck file that gives every hand. Now the lobby,
the game's page, /api/game, /api/match, the match page and the event streams of a running
game name no deck order, cut or seed and no card of any hand (the finished record keeps
them: tests/tournament/test_reproducible.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import trio

from hub.declared.kit import DeclaredKit
from hub.games.clubs.pictures import card_words
from hub.tournament.cli import Setup, build_parser
from hub.tournament.worker import load_kit
from tests.conftest import program
from tests.tournament.helpers import ROOT, environment

SILENT = 'import sys\nsys.stdout.write("-")\nsys.stdout.flush()\nfor line in sys.stdin:\n    pass\n'
"""A clubs player that says it is ready and then never plays: its game stays running."""
TIMEOUT = 60


def arguments(player: str, db: Path) -> list[str]:
    return ["clubs", player, player, player, "--time-ms", "0", "--seed", "3", "--games", "3",
            "--db", str(db)]  # fmt: skip


def web_url(process: subprocess.Popen[str]) -> str:
    assert process.stderr is not None
    for _ in range(5):
        line = process.stderr.readline()
        if line.startswith("http://"):
            return line.strip().removesuffix("/")
        assert line, "hub match ended before printing its web URL"
    raise AssertionError("no web URL on stderr")


@pytest.mark.system
async def test_a_running_card_game_shows_nothing_a_hand_follows_from(tmp_path: Path) -> None:
    player = tmp_path / "silent.py"
    player.write_text(f"#!{sys.executable}\n{SILENT}")
    player.chmod(0o755)
    db = tmp_path / "games.db"
    kit = load_kit("clubs")
    assert isinstance(kit, DeclaredKit)
    setup = Setup(build_parser(kit).parse_args([*arguments(str(player), db), "--no-record"]), kit)
    specs = [scheduled.spec for scheduled in setup.schedule.games]
    assert len({json.dumps(spec.opening) for spec in specs}) == 3  # each game its own deal
    first = specs[0]
    plan = kit.game.setup.plan(kit.game, first.settings, 3, first.opening, first.game_id)
    cards = [kit.game(seats=3).move_text(plan.state, card) for hand in plan.state.hands
             for card in hand]  # fmt: skip
    assert len(cards) == 51
    secrets = [str(first.seed), str(first.chance_seed), '"order"', '"cut"', "seeds"]

    process = subprocess.Popen(
        [program("hub"), "match", *arguments(str(player), db), "--web", "0"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True, env=environment(), cwd=ROOT,
    )  # fmt: skip
    try:
        site = web_url(process)
        with trio.fail_after(TIMEOUT):
            async with httpx.AsyncClient(timeout=TIMEOUT) as client:
                game_id = ""
                while not game_id:  # (the first game starts once its players are ready)
                    running = (await client.get(f"{site}/api/games")).json()["running"]
                    game_id = running[0]["id"] if running else ""
                    await trio.sleep(0.05)
                assert game_id.endswith("-00000")

                async def first_frame(path: str) -> str:
                    async with client.stream("GET", f"{site}{path}") as reply:
                        async for line in reply.aiter_lines():
                            if line.startswith("data:"):
                                return line
                    return ""

                shown = {
                    path: (await client.get(f"{site}{path}")).text
                    for path in [
                        "/",
                        "/api/games",
                        f"/game/{game_id}",
                        f"/api/game/{game_id}",
                        "/match",
                        "/api/match",
                    ]
                }
                for path in ["/events", f"/game/{game_id}/events"]:
                    shown[path] = await first_frame(path)
        assert json.loads(shown[f"/api/game/{game_id}"])["status"] == "running"
        assert "17 cards" in shown[f"/game/{game_id}"]  # the hands, face down
        for path, text in shown.items():
            for secret in secrets:
                assert secret not in text, (path, secret)
            if "match" in path:
                continue  # (the match's settings list its decks, as public as the deck file)
            for card in cards:
                assert f'"{card}"' not in text and card_words(card) not in text, (path, card)
    finally:
        process.terminate()
        process.wait(TIMEOUT)
