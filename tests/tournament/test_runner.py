"""The runner plays a schedule with the tic-tac-toe kit, in-process and in worker processes,
records every finished game as it arrives, and keeps the tally, the SPRT and the report."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest
import trio
import trio.testing

from hub.tournament.elo import Sprt
from hub.tournament.runner import WORKER_GRACE, InProcess, MatchReport, TournamentRunner, WorkerPool
from tests.examples.tictactoe_kit import kit
from tests.tournament.helpers import KIT, ROOT, FakeStore, schedule

LIMIT = 60


async def test_in_process_plays_every_game_and_records_it() -> None:
    plan = schedule(["first", "random:7"], 6)
    store = FakeStore()
    updates: list[int] = []
    runner = TournamentRunner(
        plan, InProcess(kit), recorder=store, on_update=lambda r: updates.append(r.done)
    )
    with trio.fail_after(LIMIT):
        report = await runner.run()
    assert (report.done, report.planned, report.stopped, report.aborted) == (6, 6, None, [])
    assert sorted(index for _, _, index in store.added) == list(range(6))
    assert {match_id for _, match_id, _ in store.added} == {plan.match_id}
    assert updates == [0, 1, 2, 3, 4, 5, 6]
    for record, _, index in store.added:
        scheduled = plan.games[index]
        assert record.game_id == scheduled.spec.game_id
        assert [p.spec for p in record.players] == list(scheduled.spec.players)
        assert record.settings["opening"] == scheduled.spec.opening
    tally = report.tally
    assert tally.games == 6
    first, other = tally.players
    assert (first.wins, first.draws, first.losses) == (other.losses, other.draws, other.wins)
    assert first.points + other.points == 6


async def test_the_tally_follows_the_seats_not_the_names() -> None:
    """`first` against itself: the first mover (X, or O after the opening) decides; the
    tally must credit the player in that seat, which alternates."""
    plan = schedule(["first", "first"], 4)
    store = FakeStore()
    with trio.fail_after(LIMIT):
        report = await TournamentRunner(plan, InProcess(kit), recorder=store).run()
    expected = [0.0, 0.0]
    for record, _, index in store.added:
        seating = plan.games[index].seating
        for seat in record.winners:
            expected[seating[seat]] += 1 / len(record.winners)
        if not record.winners:
            for player in seating:
                expected[player] += 0.5
    assert [p.points for p in report.tally.players] == expected


async def test_skipped_games_are_not_played() -> None:
    plan = schedule(["first", "random:1"], 6)
    store = FakeStore()
    runner = TournamentRunner(plan, InProcess(kit), skip={0, 2, 3}, recorder=store)
    with trio.fail_after(LIMIT):
        report = await runner.run()
    assert sorted(index for _, _, index in store.added) == [1, 4, 5]
    assert (report.planned, report.done) == (3, 3)


async def test_a_kit_failure_is_an_aborted_game_and_the_match_goes_on() -> None:
    plan = schedule(["broken", "first"], 4)
    store = FakeStore()
    with trio.fail_after(LIMIT):
        report = await TournamentRunner(plan, InProcess(kit), recorder=store).run()
    # every game needs a move from `broken` (X's opening move is made; O moves next)
    assert [a.index for a in report.aborted] == [0, 1, 2, 3]
    assert all("RuntimeError: this player has a bug" in a.reason for a in report.aborted)
    assert store.added == []
    assert (report.tally.games, report.tally.aborted, report.done) == (0, 4, 4)


async def test_the_sprt_stops_the_match_when_it_decides() -> None:
    # random:1 against first: first wins most games; a wide-open SPRT decides quickly
    plan = schedule(["first", "random:3"], 200)
    sprt = Sprt(elo0=-400, elo1=0, alpha=0.2, beta=0.2)
    with trio.fail_after(LIMIT):
        report = await TournamentRunner(plan, InProcess(kit), sprt=sprt).run()
    assert report.stopped == "sprt"
    assert report.sprt_state is not None
    assert report.sprt_state.verdict is not None
    assert report.done < 200
    assert report.tally.games == report.done


async def test_cancelling_keeps_the_results_so_far() -> None:
    plan = schedule(["busy:50", "first"], 50)
    runner = TournamentRunner(plan, InProcess(kit))
    reached = trio.Event()

    def update(report: MatchReport) -> None:
        if report.done == 2:
            reached.set()

    runner.on_update = update
    with trio.fail_after(LIMIT):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(runner.run)
            await reached.wait()
            nursery.cancel_scope.cancel()
    assert runner.report.done == 2
    assert runner.report.running == 0
    assert runner.report.finished_at is not None


@pytest.fixture
def importable_kit(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    return KIT


async def test_worker_processes_play_the_same_games(importable_kit: str) -> None:
    plan = schedule(["first", "random:5"], 8)
    local, remote = FakeStore(), FakeStore()
    with trio.fail_after(LIMIT):
        await TournamentRunner(plan, InProcess(kit), recorder=local).run()
        report = await TournamentRunner(plan, WorkerPool(importable_kit, 2), recorder=remote).run()
    assert (report.done, report.aborted) == (8, [])

    def moves(store: FakeStore) -> dict[int | None, list[str]]:
        return {index: [m.move for m in record.moves] for record, _, index in store.added}

    assert moves(remote) == moves(local)
    assert sorted(moves(remote)) == list(range(8))


async def test_a_worker_that_dies_is_replaced(importable_kit: str) -> None:
    # exit:9 ends the worker as soon as it must move: in games where it moves at all
    plan = schedule(["exit:9", "first"], 4)
    with trio.fail_after(LIMIT):
        report = await TournamentRunner(plan, WorkerPool(importable_kit, 2)).run()
    assert report.done == 4
    assert sorted(a.index for a in report.aborted) == [0, 1, 2, 3]
    assert all(a.reason == "the worker died (exit status 9)" for a in report.aborted)


async def test_the_next_game_after_a_worker_died_is_played(importable_kit: str) -> None:
    plan = schedule(["first", "first"], 3)
    dying = attrs.evolve(plan.games[1].spec, players=("exit:9", "exit:9"))
    games = (plan.games[0], attrs.evolve(plan.games[1], spec=dying), plan.games[2])
    plan = attrs.evolve(plan, games=games)
    store = FakeStore()
    with trio.fail_after(LIMIT):
        report = await TournamentRunner(plan, WorkerPool(importable_kit, 1), recorder=store).run()
    assert [(a.index, a.reason) for a in report.aborted] == [(1, "the worker died (exit status 9)")]
    assert sorted(index for _, _, index in store.added) == [0, 2]  # one slot: a new worker


async def test_workers_report_a_kit_failure(importable_kit: str) -> None:
    plan = schedule(["first", "broken"], 2)
    with trio.fail_after(LIMIT):
        report = await TournamentRunner(plan, WorkerPool(importable_kit, 2)).run()
    assert [a.reason for a in report.aborted] == ["RuntimeError: this player has a bug"] * 2


async def test_a_worker_that_cannot_load_the_kit_aborts_games() -> None:
    plan = schedule(["first", "first"], 2)
    with trio.fail_after(LIMIT):
        report = await TournamentRunner(plan, WorkerPool("no.such.module:kit", 1)).run()
    assert [a.reason for a in report.aborted] == ["the worker died (exit status 2)"] * 2


async def test_cancelling_a_worker_match_reaps_the_workers(importable_kit: str) -> None:
    plan = schedule(["busy:200", "busy:200"], 20)
    first = trio.Event()
    runner = TournamentRunner(plan, WorkerPool(importable_kit, 2), on_game=lambda _: first.set())
    with trio.fail_after(LIMIT):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(runner.run)
            await first.wait()  # the workers are up, and playing the next games
            nursery.cancel_scope.cancel()
    assert runner.report.done < 20
    # the autouse fixture checks that no worker is left behind


async def test_an_interrupted_match_ends_a_worker_still_starting_at_once(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    """A worker reads its input only once it has imported everything (a second or more on
    a loaded machine), so closing it does not end a worker that is still starting; the
    interrupted match then waited the whole grace a worker has to finish its game before
    its SIGTERM, and `hub match` took seconds to end (issue 20: every program ends within
    2 s of a signal). Interrupted, the match sends its workers SIGTERM at once."""
    autojump_clock.autojump_threshold = 0.5  # real seconds with nothing to do: the clock jumps
    python = tmp_path / "python"
    python.write_text("#!/bin/sh\nexec sleep 600\n")  # a worker that never reads its input
    python.chmod(0o755)
    runner = TournamentRunner(
        schedule(["first", "first"], 2), WorkerPool(KIT, 1, python=str(python))
    )
    with trio.move_on_after(1.0):  # the interrupt, 1 s in
        await runner.run()
    assert trio.current_time() < 1.0 + WORKER_GRACE
