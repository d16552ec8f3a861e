"""``hub serve uqchess`` records every finished game (``--db PATH``) unless ``--no-record``;
``uqchessserver`` (its command line and output are the spec's) only when ``$HUB_DB`` is set.

The server runs until killed, and writes a game off its event loop as soon as it ends: the
tests wait (bounded) for the record to appear."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import attrs
import pytest
import trio

from hub.core.model.referee import Termination
from hub.games.uqchess.options import ServerOptions, parse_args
from tests.conftest import need_stockfish, program
from tests.records.stored import stored_records
from tests.uqchess.helpers import TIMEOUT, connect, running_server

pytestmark = pytest.mark.e2e

UNABLE = "unable to open database file"


def test_record_options() -> None:
    assert parse_args(["--db", "x.db"]) is None  # not uqchessserver's
    assert parse_args(["--no-record"]) is None
    assert parse_args([]) == ServerOptions()
    hub = ServerOptions(log_level="warning")  # hub serve uqchess logs warnings by default
    assert parse_args(["--db", "x.db"], hub_options=True) == attrs.evolve(hub, record=Path("x.db"))
    assert parse_args(["--no-record"], hub_options=True) == attrs.evolve(hub, record=None)
    for bad in (["--db"], ["--db", ""], ["--no-record", "--no-record"]):
        assert parse_args(bad, hub_options=True) is None, bad


async def fools_mate(command: Sequence[str], database: Path | None) -> bytes:
    """A fool's mate between two clients of the server ``command``; once its record is in
    ``database`` (if given), the server is killed: the rest of its stderr (after the port).
    A server that records opens its database before it serves: when a game has been played
    without it, there is none."""
    need_stockfish()
    async with running_server(command=command) as server:
        async with connect(server.port) as w, connect(server.port) as b:
            await w.ask("start human white")
            await b.ask("start human black", "started black")
            await w.expect("started white")
            for mover, other, move in [(w, b, "f2f3"), (b, w, "e7e5"), (w, b, "g2g4")]:
                await mover.ask(f"move {move}", "ok")
                await other.expect(f"moved {move}")
            await b.ask("move d8h4", "ok", "gameover checkmate black")
            await w.expect("moved d8h4", "gameover checkmate black")
        if database is not None:
            with trio.fail_after(TIMEOUT):
                while not stored_records(database):
                    await trio.sleep(0.02)
        server.process.kill()
        await server.process.wait()
        return await server.rest_of_stderr()


def assert_one_fools_mate(database: Path) -> None:
    (record,) = stored_records(database)
    assert record.game == "chess" and record.termination is Termination.NORMAL
    assert [move.move for move in record.moves] == ["f2f3", "e7e5", "g2g4", "d8h4"]
    assert record.winners == (1,)


async def test_hub_serve_uqchess_records_in_the_database_given(
    tmp_path: Path, records_database: Path
) -> None:
    path = tmp_path / "uqchess.db"
    hub = [program("hub"), "serve", "uqchess"]
    assert await fools_mate([*hub, "--db", str(path)], path) == b""
    assert_one_fools_mate(path)
    assert not records_database.exists()
    assert await fools_mate(hub, records_database) == b""  # by default: $HUB_DB
    assert_one_fools_mate(records_database)
    records_database.unlink()
    assert await fools_mate([*hub, "--no-record"], None) == b""
    assert not records_database.exists()


async def test_uqchessserver_records_only_with_hub_db(
    records_database: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert await fools_mate([program("uqchessserver")], records_database) == b""
    assert_one_fools_mate(records_database)
    records_database.unlink()
    monkeypatch.delenv("HUB_DB")
    assert await fools_mate([program("uqchessserver")], None) == b""
    assert not records_database.exists()


async def test_an_unusable_database_is_one_line_and_the_server_goes_on(tmp_path: Path) -> None:
    stderr = await fools_mate([program("hub"), "serve", "uqchess", "--db", str(tmp_path)], None)
    reason = f"cannot record games in {tmp_path} ({UNABLE}); playing on without recording"
    assert stderr == f"uqchessserver: {reason}\n".encode()
