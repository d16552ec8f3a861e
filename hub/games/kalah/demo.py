"""``hub demo kalah``: our AI client against the server's AI over a real loopback socket.

Both run in this process (the server on an ephemeral localhost port, the client connected
to it over TCP); the demo prints the protocol conversation as the client sees it (``S:``
from the server, ``C:`` from the client), then the final board and result.
"""

from __future__ import annotations

from collections.abc import Sequence

import trio

from hub.core.lines import LineStream
from hub.core.output import Output
from hub.games.kalah.client import play_remote
from hub.games.kalah.console import draw_board
from hub.games.kalah.options import GameOptions
from hub.games.kalah.players import AiPlayer
from hub.games.kalah.server import serve

TIME_MS = 200
LEVEL = 9


class TappedLines(LineStream):
    """A `LineStream` that prints every line it receives (``S:``) and sends (``C:``)."""

    def __init__(self, stream: trio.SocketStream, out: Output) -> None:
        super().__init__(stream, stream)
        self.out = out

    async def receive_line(self, max_line: int | None = None) -> str:
        line = await super().receive_line(max_line)
        self.out.line(f"S: {line}")
        self.out.flush()
        return line

    def queue_line(self, line: str) -> None:
        self.out.line(f"C: {line}")
        self.out.flush()
        super().queue_line(line)


async def run_demo(out: Output) -> int:
    options = GameOptions(
        holes=6, seeds=4, pie=True, time_ms=TIME_MS, first="client", level=LEVEL, seed=1
    )
    quiet = Output(1)
    quiet.broken = True  # the server's own log would interleave with the transcript
    async with trio.open_nursery() as nursery:
        port = await nursery.start(lambda task_status: serve(
            options, 0, games=1, out=quiet, err=quiet, task_status=task_status
        ))  # fmt: skip
        out.line(
            f"== kalah: AI client vs the server's AI on localhost:{port}, 6 holes x 4 seeds, "
            f"pie rule, {TIME_MS} ms per turn"
        )
        out.flush()
        stream = await trio.open_tcp_stream("localhost", port)
        async with stream:
            lines = TappedLines(stream, out)
            result = await play_remote(
                lines, AiPlayer(level=LEVEL), pie=True, out=quiet, quiet=True
            )
    state = result.state
    out.line("\n".join(draw_board(state, result.seat, ("client", "server"))))
    mine, theirs = state.store(result.seat), state.store(1 - result.seat)
    out.line(f"== kalah: the client is told {result.result} ({mine}-{theirs})")
    out.flush()
    return 0


def main(args: Sequence[str] = ()) -> int:
    return trio.run(run_demo, Output(1))
