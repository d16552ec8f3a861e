"""``hub demo kalah``: a narrated game between our AI client and the server's AI.

Both run in this process: the server (`KalahServer`, as ``hub serve kalah`` runs it) on a free
localhost port, and the client (`play_remote`, as ``hub play kalah --connect`` runs it)
connected to it over TCP; they speak the Kalah protocol. What is shown is not the protocol but
the game, drawn from the server's event stream (`hub.core.model.events`): the board after each of
the first turns, then one line a turn with the stores, then the final board and the result.
Both AIs search to a fixed depth (level 5), well inside their time, so the game is the same
on every machine.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs
import trio

from hub.core.commands.tour import Tour
from hub.core.io.lines import LineStream
from hub.core.io.listen import bound_port, open_listeners
from hub.core.io.output import Output
from hub.core.io.serve import serve_lines
from hub.core.model.events import Event, GameEnded, GameStarted, MoveMade
from hub.games.kalah.client import ClientResult, play_remote
from hub.games.kalah.codec import state_from_view
from hub.games.kalah.console import describe_move, draw_board, side_name
from hub.games.kalah.options import GameOptions
from hub.games.kalah.players import ai_seat
from hub.games.kalah.printer import GameView
from hub.games.kalah.rules import KalahState
from hub.games.kalah.server import KalahServer
from hub.games.kalah.settings import KalahSettings

STEPS = 4
LEVEL = 5
TIME_MS = 5000
BOARDS = 4
"""Turns shown with the board after them; later turns get one line each."""
NAMES = ("client", "server")
"""By seat: the client moves first (seat 0)."""
BOTTOM = 0
"""The client's holes along the bottom of the board (South until a pie swap)."""
RESULT_WORDS = {"WINNER": "won", "LOSER": "lost", "TIE": "tied"}


@attrs.define(eq=False)
class GameStory:
    """Tells the game from the server's events (an `EventBus` listener: never blocks)."""

    tour: Tour
    out: Output
    _before: KalahState | None = None

    def __call__(self, event: Event) -> None:
        if isinstance(event, GameStarted):
            self._before = state_from_view(event.state)
            self._draw(self._before)
        elif isinstance(event, MoveMade):
            after = state_from_view(event.state)
            before, self._before = self._before or after, after
            if event.ply == BOARDS + 1 and event.to_move is not None:
                self.tour.step(
                    "the middle game, one line a turn",
                    "From here on, one line a turn with the stores after it (client first).",
                )
            who = f"{event.ply:>2}. {NAMES[event.seat]} ({side_name(before, event.seat)})"
            line = f"{who} {describe_move(event.move)}"
            if event.ply <= BOARDS:
                self.out.line(line)
                if event.to_move is not None:
                    self._draw(after)
            else:
                stores = f"{after.store(0)}-{after.store(1)}"
                self.out.line(f"{line:<40} stores {stores}")
            self.out.flush()
        elif isinstance(event, GameEnded):
            self.tour.step(
                "the end",
                "The game ends when one side has no seeds left in its holes; each player",
                "then adds the seeds still on its side to its store, and the fuller store",
                "wins.",
            )
            self._draw(state_from_view(event.record.final_state))
            self.out.line(GameView(self.out, NAMES, BOTTOM).result_line(event.record))
            self.out.flush()

    def _draw(self, state: KalahState) -> None:
        self.out.line("\n".join(draw_board(state, BOTTOM, NAMES)))


async def run_demo(out: Output) -> int:
    tour = Tour(out, "kalah", STEPS)
    options = GameOptions(
        KalahSettings(6, 4, pie=True, time_ms=TIME_MS), first="client", level=LEVEL, seed=1
    )
    quiet = Output(1)
    quiet.broken = True  # the server's and client's own logs would interleave with the story
    tour.step(
        "a server and a client",
        "`hub serve kalah` waits for clients on a TCP port, and `hub play kalah --connect`",
        "plays as one. Here our AI client plays the server's AI over localhost, both at",
        f"level {LEVEL} (they look six turns ahead, so the game is the same every time).",
        "They talk in the Kalah protocol; what you see is the game as the server sees it.",
    )
    tour.step(
        "the rules, on the first turns",
        "Each side has 6 holes of 4 seeds and a store on its right. A turn takes all the",
        "seeds of one of your holes and sows them one by one counter-clockwise, into your",
        "own store but not the other's. A last seed in your store sows again (so a turn can",
        "be several holes: `sows 3 5`); a last seed in an empty hole of yours captures the",
        "seeds opposite it. With the pie rule, the second player may answer the first turn",
        "by taking the pie: the sides swap.",
    )
    server = KalahServer(options, out=quiet, games_limit=1)
    server.events.listen(GameStory(tour, out))
    listeners = await open_listeners(0)
    result: ClientResult | None = None
    async with trio.open_nursery() as nursery:
        await nursery.start(
            lambda task_status: serve_lines(
                server.handle, listeners, max_line=server.max_line, task_status=task_status
            )
        )
        stream = await trio.open_tcp_stream("localhost", bound_port(listeners))
        async with stream:
            lines = LineStream(stream, stream)
            player = ai_seat(LEVEL)
            result = await play_remote(lines, player, pie=True, out=quiet, quiet=True)
        await server.all_done.wait()
        nursery.cancel_scope.cancel()
    word = result.result
    tour.say(f"The client is told {word} (the protocol's word: it {RESULT_WORDS.get(word, '?')}).")
    return 0


def main(args: Sequence[str] = ()) -> int:
    """The demo. A Ctrl-C or SIGTERM is raised only at a checkpoint of the main task (the
    client): the server and the client share this process, and an interrupt that landed in
    the server's code (its AI, the story's listener) ended the server, which the client then
    reported as a failure, ``ServerGone``, while the interrupt itself was lost (replaced by
    the cancellation that reached the server's clean-up): a traceback and exit 1, not 130."""
    return trio.run(run_demo, Output(1), restrict_keyboard_interrupt_to_checkpoints=True)
