"""``hub match kalah`` (the Kalah kit, our server side over pipes) against agent programs
that hang with a child holding the pipes and ignore SIGTERM, or flood lines: each loses with
the reason recorded (docs/matches.md), and nothing outlives the game."""

from __future__ import annotations

from pathlib import Path

from hub.core.model.referee import Termination
from tests.faults.helpers import bad_program, gone
from tests.kalah.test_match_kit import agent, replay, run, settings


async def test_a_hanging_agent_with_a_child_and_sigterm_ignored_loses_on_time(
    tmp_path: Path,
) -> None:
    real, transcript = agent(tmp_path, "agent", "hang", "0")
    pidfile = tmp_path / "grandchild"
    bad = bad_program(tmp_path, "bad", "ignore-term", f"fork:{pidfile}", real=[real])
    record, _ = await run(
        [bad, "ai:1"], settings("--holes", "4", "--seeds", "3", "--time-ms", "300")
    )
    assert record.fault is not None
    assert (record.fault.seat, record.fault.termination) == (0, Termination.TIMEOUT)
    assert list(record.winners) == [1]
    replay(record)
    assert transcript.read_text().splitlines()[-2:] == ["TIME", "LOSER"]
    assert gone(int(pidfile.read_text())), "the agent's child outlived the game"


async def test_an_agent_that_floods_lines_loses_as_malformed(tmp_path: Path) -> None:
    bad = bad_program(tmp_path, "bad", "flood-lines")
    record, _ = await run([bad, "ai:1"], settings("--holes", "4", "--seeds", "3", "--time-ms", "0"))
    assert record.fault is not None
    assert (record.fault.seat, record.fault.termination) == (0, Termination.MALFORMED)
    assert record.moves == ()
