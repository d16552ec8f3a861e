"""Kalah's seats of the core match loop, its handshake, and the one way a Kalah match is built.

There is no Kalah game loop: every game (the server's, a local game at the terminal, one
game of ``hub match``) is a `hub.core.play.match.Match` of the declaration
(`hub.games.kalah.game.KalahGame`) made by `new_match`, whose seats are:

* a client (a TCP peer, or an agent program over pipes): `client_seat`, a
  `hub.core.play.seats.LineSeat` speaking `hub.games.kalah.codec.KalahCodec`, after `welcome`
  (``WELCOME``) and `greet` (``INFO``, then ``READY`` within a deadline) have succeeded;
* a local player of `hub.games.kalah.players` (the AI: the core's `ThreadSeat`; a script:
  the core's `ScriptedSeat`; a person: the core's `PersonSeat`), each with `LATE_GRACE`: at its
  deadline the opponent is told ``TIME`` at once, and a move that still comes within the
  grace is shown to the opponent before ``WINNER`` (the record keeps it as the fault's
  move). A player that quits loses by ``RESIGNATION``.

Timing is the core's: each seat has a `TimeControl.per_move_ms` of its limit (0: none).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import trio

from hub.core.io.lines import LineError, LineStream, LineTooLong
from hub.core.model.bus import EventBus
from hub.core.model.clock import TimeControl
from hub.core.model.referee import Termination
from hub.core.model.values import JSON, PlayerInfo
from hub.core.play.game import Game
from hub.core.play.match import Match
from hub.core.play.seats import LineSeat
from hub.core.play.vocabulary import Seat, SeatFailure
from hub.games.kalah.codec import KalahCodec
from hub.games.kalah.protocol import READY, WELCOME, Info, format_info, is_word, safe_text
from hub.games.kalah.rules import KalahState, Move

KalahSeat = Seat[KalahState, Move]


def client_seat(lines: LineStream, player: PlayerInfo, max_line: int) -> LineSeat[KalahState, Move]:
    """A client (socket or pipes) that has said ``READY``, as a seat."""
    return LineSeat(lines, KalahCodec(max_line), player)


async def welcome(lines: LineStream) -> None:
    """Say ``WELCOME``: the first line every client gets (a server's at once on connecting,
    before any wait in the lobby; an agent program's at its start). The one place it is
    sent."""
    lines.queue_line(WELCOME)
    await lines.flush()


async def greet(
    lines: LineStream, info: Info, *, max_line: int, timeout: float
) -> SeatFailure | None:
    """Send ``INFO`` and wait up to ``timeout`` s for ``READY``: None once it came, else why
    not (a `SeatFailure` to raise at ``begin``, or to drop the client)."""
    lines.queue_line(format_info(info))
    await lines.flush()
    with trio.move_on_after(timeout):
        try:
            line = await lines.receive_line(max_line)
        except LineTooLong:
            return SeatFailure(Termination.MALFORMED, "an endless line instead of READY")
        except LineError as exc:
            return SeatFailure(Termination.DISCONNECT, f"no READY: {exc}")
        if is_word(line, READY):
            return None
        return SeatFailure(Termination.MALFORMED, f"{safe_text(line)!r} instead of READY")
    return SeatFailure(Termination.TIMEOUT, f"no READY within {timeout:g} s")


def new_match(
    game: Game[KalahState, Move],
    state: KalahState,
    seats: Sequence[KalahSeat],
    limits_ms: Sequence[int],
    *,
    events: EventBus | None = None,
    settings: Mapping[str, JSON] | None = None,
    game_id: str | None = None,
) -> Match[KalahState, Move]:
    """A Kalah game of the declaration ``game`` (`hub.games.kalah.game.KalahGame`, which
    this module does not import: it names this package's seats) between ``seats`` (seat 0
    moves first), from ``state``, ``limits_ms`` per move each."""
    return Match(
        game,
        state,
        seats,
        events=events,
        time_control=[TimeControl.per_move_ms(ms) for ms in limits_ms],
        settings=settings,
        game_id=game_id,
    )
