"""Tournaments as a user runs them (issue 26 items 1-2): ``hub match GAME P1 P2 P3 ...`` in
every format, each killed with SIGKILL after a few games and resumed with nothing lost or
played twice; the table, the crosstable and ``--json``; usage errors."""

from __future__ import annotations

import itertools
import json
import sqlite3
from pathlib import Path

import pytest
import trio

from hub.records import RecordStore
from hub.tournament.formats import SWISS, Plan
from hub.tournament.runner import InProcess, TournamentRunner
from hub.tournament.schedule import Field
from hub.tournament.standings import Crosstable
from tests.examples.tictactoe_kit import kit
from tests.tournament.helpers import KIT, ROOT, FakeStore
from tests.tournament.test_cli import first_line, hub_match, match_id, run, wait_for_games

BOT = f"json:{ROOT / 'players' / 'json_bot.py'}"
"""A random player in its own process (slow enough for a kill to land mid-tournament)."""
C4 = ("connect4", "--tc", "none")


def players(count: int, bots: int = 2) -> list[str]:
    """``count`` players of which ``bots`` are JSON bots, the rest random:N and ai:1."""
    built_in = ["ai:1", *(f"random:{n}" for n in range(1, count))]
    return [BOT] * bots + built_in[: count - bots]


CASES = {  # args, games (None: a knockout's ties add some), format, seats
    "round-robin of 4": ([*C4, *players(4)], 12, "round-robin", 2),
    "gauntlet, 2 seeds against 3": (
        [*C4, *players(5), "--format", "gauntlet", "--gauntlet-seeds", "2"], 12, "gauntlet", 2,
    ),
    "Swiss of 12 for 4 rounds": (
        [*C4, *players(12), "--format", "swiss", "--rounds", "4", "--concurrency", "2"],
        48, "swiss", 2,
    ),
    "knockout of 8": ([*C4, *players(8), "--format", "knockout"], None, "knockout", 2),
    "clubs, 6 at tables of 3": (["clubs", *players(6), "--table", "3"], 18, "tables", 3),
    "clubs, 6 at tables of 4": (
        ["clubs", *players(6), "--table", "4", "--concurrency", "2"], 12, "tables", 4,
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_a_tournament_killed_and_resumed_loses_and_repeats_nothing(
    tmp_path: Path, case: str
) -> None:
    args, total, fmt, seats = CASES[case]
    db = tmp_path / "games.db"
    args = [*args, "--db", str(db)]
    process = hub_match(*args)
    try:
        ident = match_id(first_line(process))
        wait_for_games(db, 3)
        process.kill()
        process.wait()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    with RecordStore.open(db) as store:
        before = {s.game_id: s.index for s in store.games(match_id=ident)}
    assert 3 <= len(before) < (total or 14)  # (the kill landed mid-tournament)

    done = run(*args, "--resume", ident, "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    with RecordStore.open(db) as store:
        summaries = store.games(match_id=ident)
        indices = [summary.index for summary in summaries]
    # nothing lost: every game of the tournament once; nothing replayed: the games recorded
    # before the kill are still there, each index once
    games = result["games"]
    if total is not None:
        assert games == total
    assert result["scored"] == games and result["stopped"] is None and not result["aborted"]
    assert sorted(indices) == list(range(games))
    after = {summary.game_id: summary.index for summary in summaries}
    assert all(after.get(game) == index for game, index in before.items())
    assert sum(line["games"] for line in result["standings"]) == games * seats
    # the crosstable agrees with the standings
    cells = result["crosstable"]["cells"]
    for line, player in zip(result["standings"], result["crosstable"]["order"], strict=True):
        played = sum(cell["games"] for cell in cells[player] if cell is not None)
        assert played == line["games"] * (seats - 1)
    assert result["format"]["name"] == fmt
    if fmt == "swiss":  # no pair twice: one game pair per pair that met
        assert {cell["games"] for row in cells for cell in row if cell is not None} == {2}
    if fmt == "knockout":
        assert result["format"]["winner"] is not None
        reached = result["format"]["reached"]  # 8 players: 3 rounds, the winner went past them
        assert sorted(reached.values()) == [0, 0, 0, 0, 1, 1, 2, 3]
        assert reached[result["format"]["winner"]] == 3
        assert games >= 14
    with sqlite3.connect(db) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]


def test_a_swiss_never_pairs_two_players_twice(tmp_path: Path) -> None:
    field = [f"random:{n}" for n in range(1, 13)]
    done = run(*C4, *field, "--format", "swiss", "--rounds", "4", "--json", "--no-record")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    cells = result["crosstable"]["cells"]
    for a, b in itertools.combinations(range(12), 2):
        assert cells[a][b] is None or cells[a][b]["games"] == 2  # one game pair, or none
    assert all(line["games"] == 8 for line in result["standings"])  # 4 rounds of a game pair
    assert result["format"] == {"name": "swiss", "rounds": 4, "seeds": None, "table": 2,
                                "stages": 4, "winner": None, "reached": None}  # fmt: skip


def test_the_table_shows_the_format_elo_and_the_crosstable() -> None:
    done = run(*C4, "ai:1", "random:1", "random:2", "random:3", "--no-record")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert ", 12 of 12 games scored, 0 aborted, complete (" in lines[0]
    assert lines[1].split()[:10] == ["rank", "player", "games", "W", "D", "L", "points",
                                     "score", "game", "score"]  # fmt: skip
    assert "Elo" in lines[1]
    assert "Format: round-robin, every pair meets 1 time (game pairs)" in lines
    start = lines.index("Format: round-robin, every pair meets 1 time (game pairs)")
    assert lines[start + 1].startswith("Crosstable")
    rows = lines[start + 3 : start + 7]
    assert [row.split()[0] for row in rows] == ["1", "2", "3", "4"]
    assert all(row.split()[2 + n] == "-" for n, row in enumerate(rows))  # the diagonal
    assert "Elo difference" not in done.stdout  # (two players' head-to-head only)


@pytest.mark.parametrize(
    ("args", "hint"),
    [
        ([*C4, "a", "--format", "swiss"], "at least two players"),
        ([*C4, "ai:1", "ai:2", "ai:3", "--games", "6"], "--games is for a match of one table"),
        ([*C4, "ai:1", "ai:2", "--rounds", "2"], "--rounds is for a tournament"),
        ([*C4, "ai:1", "ai:2", "ai:3", "--format", "swiss", "--rounds", "2"], "at most 1 round "),
        ([*C4, "ai:1", "ai:2", "ai:3", "--gauntlet-seeds", "1"], "is for --format gauntlet"),
        (
            [*C4, "ai:1", "ai:2", "ai:3", "--format", "gauntlet", "--gauntlet-seeds", "3"],
            "has 1 to 2",
        ),
        ([*C4, "ai:1", "ai:2", "ai:3", "--sprt", "elo0=0,elo1=5"], "--sprt needs exactly two"),
        (
            ["clubs", "random", "random", "random", "random", "random", "--table", "5"],
            "not tables of 5",
        ),
        ([*C4, "ai:1", "ai:2", "ai:3", "--format", "pyramid"], "invalid choice"),
    ],
)
def test_bad_tournament_usage_is_one_line_and_status_2(args: list[str], hint: str) -> None:
    done = run(*args, "--no-record")
    assert done.returncode == 2
    assert hint in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr


def test_a_swiss_on_ray_records_every_game_of_every_round(tmp_path: Path) -> None:
    pytest.importorskip("ray", reason="ray is not installed (pip install 'hub[cluster]')")
    db = tmp_path / "games.db"
    field = ["ai:1", *(f"random:{n}" for n in range(1, 6))]
    args = [*C4, *field, "--format", "swiss", "--rounds", "3", "--cluster", "ray"]
    done = run(*args, "--concurrency", "2", "--json", "--db", str(db))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["games"] == result["scored"] == 18 and result["format"]["stages"] == 3
    with RecordStore.open(db) as store:
        assert store.finished_indices(result["match_id"]) == set(range(18))


# -- the runner over a field (in-process, the tic-tac-toe kit) -----------------------------------


def field(plan: Plan, players: list[str]) -> Field:
    settings = {"time_ms": 1000}
    return Field(plan, "f" * 32, KIT, tuple(players), settings, 1,
                 tuple(kit.openings(settings, plan.most_tables(), 1)))  # fmt: skip


async def test_the_runner_draws_each_swiss_round_from_the_last_ones_results() -> None:
    players = ["first", "random:1", "random:2", "random:3", "random:4", "random:5"]
    tournament = field(Plan(SWISS, 6, rounds=3, seed=1), players)
    store = FakeStore()
    runner = TournamentRunner(tournament.schedule({}), InProcess(kit), recorder=store,
                              crosstable=Crosstable(tuple(players)))  # fmt: skip
    with trio.fail_after(60):
        report = await runner.run()
    assert (report.done, report.planned, report.stopped, report.aborted) == (18, 18, None, [])
    assert sorted(index for _, _, index in store.added) == list(range(18))
    assert len(report.schedule) == 18 and report.schedule.field is tournament
    # The rounds the runner played are the ones the plan draws from the recorded results.
    assert [game.spec for game in tournament.games(report.points)] == [
        game.spec for game in report.schedule.games
    ]
    assert report.crosstable is not None and report.crosstable.games == 18


async def test_a_stage_with_an_aborted_game_ends_a_swiss_there() -> None:
    players = ["first", "broken", "random:2", "random:3"]
    tournament = field(Plan(SWISS, 4, rounds=2, seed=1), players)
    runner = TournamentRunner(tournament.schedule({}), InProcess(kit))
    with trio.fail_after(60):
        report = await runner.run()
    assert report.done == 4 and len(report.aborted) == 2  # broken's game pair, round 1 only
    assert len(report.schedule) == 4 and report.stopped == "incomplete"  # no round 2
    resumed = TournamentRunner(report.schedule, InProcess(kit), points=report.points,
                               skip=report.points.keys())  # fmt: skip
    assert [game.index for game in resumed.games] == sorted(a.index for a in report.aborted)
