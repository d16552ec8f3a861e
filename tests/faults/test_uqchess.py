"""The UQChess server with an engine that dies mid-search, answers garbage or floods one
endless line: uqchess.md's behaviour every time (``error engine`` to every client, the
message, exit 7), the engine reaped and no process left behind."""

from __future__ import annotations

import pytest
import trio

from tests.chesslib.helpers import fake_engine_argv
from tests.uqchess.helpers import connect, running, running_server

EXITED = b"uqchessserver: chess engine exited unexpectedly\n"


@pytest.mark.parametrize(
    "engine",
    [["--die-after", "1"], ["--mode", "garbage"], ["--mode", "long"]],
    ids=["dies-mid-search", "garbage-bestmove", "endless-line"],
)
async def test_an_engine_that_fails_mid_search_ends_the_server_with_status_7(
    engine: list[str],
) -> None:
    async with running_server(engine=fake_engine_argv(*engine)) as server:
        async with connect(server.port) as player, connect(server.port) as idle:
            [pid] = server.engine_pids()
            await player.ask("start computer black", "started black")  # the engine moves
            await player.expect("error engine")
            await idle.expect("error engine")
            with trio.fail_after(20):
                assert await server.process.wait() == 7
            assert await server.rest_of_stderr() == EXITED
            await player.expect_closed()
            await idle.expect_closed()
        assert not running(pid), "the engine was not reaped"
