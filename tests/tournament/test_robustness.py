"""Players that crash, hang or send garbage lose their games with the reason recorded, are
started afresh for the next game, and the match goes on: in-process and in workers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import trio

from hub.core.model.referee import Termination
from hub.tournament.runner import Backend, InProcess, TournamentRunner, WorkerPool
from tests.examples.tictactoe_kit import kit
from tests.tournament.helpers import (
    CRASH,
    GARBAGE,
    HANG,
    KIT,
    ROOT,
    FakeStore,
    schedule,
    script,
)

LIMIT = 60
CASES = [  # (the player, its time per move in ms, how it loses, the recorded detail)
    (CRASH, 10_000, Termination.DISCONNECT, "waiting for a move"),
    (HANG, 200, Termination.TIMEOUT, "no move in time"),  # a hang waits out every clock
    (GARBAGE, 10_000, Termination.MALFORMED, "'middle!' is not a cell number"),
]


def backend(kind: str) -> Backend:
    return InProcess(kit) if kind == "in-process" else WorkerPool(KIT, 2)


@pytest.mark.parametrize("kind", ["in-process", "workers"])
@pytest.mark.parametrize(("body", "time_ms", "termination", "detail"), CASES)
async def test_a_broken_player_loses_every_game_and_the_match_goes_on(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    kind: str,
    body: str,
    time_ms: int,
    termination: Termination,
    detail: str,
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    bad = f"program:{script(tmp_path, 'bad.py', body)}"
    plan = schedule([bad, "first"], 4, time_ms=time_ms)
    store = FakeStore()
    with trio.fail_after(LIMIT):
        report = await TournamentRunner(plan, backend(kind), recorder=store).run()
    assert (report.done, report.aborted) == (4, [])
    assert len(store.added) == 4
    for record, _, index in store.added:
        bad_seat = plan.games[index].seating.index(0)
        assert record.termination is termination
        assert record.fault is not None
        assert record.fault.seat == bad_seat
        assert detail in record.fault.detail
        assert record.winners == (1 - bad_seat,)
    first, second = report.tally.players
    assert (first.wins, first.draws, first.losses) == (0, 0, 4)
    assert (second.wins, second.draws, second.losses) == (4, 0, 0)


# -- workers started before the match's checks (hub.tournament.runner.start_workers) ----------


def test_a_refused_match_reaps_the_workers_it_started_early() -> None:
    """The workers start before the players are checked; a match refused then (a player that
    is no player) ends them, every one reaped, and still says why with status 2."""
    from hub.tournament.cli import main
    from tests.conftest import our_descendants

    args = ["connect4", "ai:1", "nosuch:thing", "--concurrency", "2", "--no-record"]
    assert main(args) == 2
    assert our_descendants() == []


def test_a_match_plays_on_the_workers_it_started_early(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """Each slot adopts a worker started before the checks: with spawning made to fail, the
    games are still played (by the early ones), and none is left behind."""
    from hub.core.io.process import ChildProcess, SpawnFailed
    from hub.tournament.cli import main
    from tests.conftest import our_descendants

    async def no_spawn(*args: object, **kwargs: object) -> ChildProcess:
        raise SpawnFailed("spawning was turned off by the test")

    monkeypatch.setattr(ChildProcess, "spawn", no_spawn)
    args = ["connect4", "ai:1", "ai:2", "--tc", "none", "--games", "2", "--concurrency", "2"]
    assert main([*args, "--no-record", "--seed", "5", "--json"]) == 0
    assert our_descendants() == []
    report = json.loads(capfd.readouterr().out)
    assert (report["scored"], report["aborted"]) == (2, [])
