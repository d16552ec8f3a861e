"""The player programs at a clubs table: start, seat, and always end and reap them.

Shared by ``clubhub`` (`hub.games.clubs.hub`) and ``hub match`` (`hub.games.clubs.match`):

* `start_players` starts each program as ``prog N ID`` (no shell) and waits, under one
  deadline for all, for every player's ``-``; it says which seat failed and how;
* `program_seats` puts each child in a `LineSeat` speaking `ClubsCodec`;
* `adopt_players` takes over the players `launch.first_steps` started before the engine;
* `end_players` sends ``end`` to every player still running, closes its stdin and reaps
  every child within one shared grace period (SIGKILL after it), even when cancelled.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs
import trio

from hub.core.io.lines import LineError
from hub.core.io.process import ChildProcess, ExitStatus, SpawnFailed, stop_all
from hub.core.model.referee import Termination
from hub.core.model.values import PlayerInfo
from hub.core.play.seats import LineSeat
from hub.games.clubs.cards import Card
from hub.games.clubs.codec import ClubsCodec
from hub.games.clubs.launch import EarlyStart
from hub.games.clubs.protocol import END, LABELS, MAX_PLAY_LINE, READY
from hub.games.clubs.rules import ClubsState

HUMAN = "human"
"""The player spec of a person at the terminal (as in the other games' match kits; the
seat itself is in `hub.games.clubs.person`, imported only when a person plays)."""
END_GRACE = 2.0
"""Seconds every player has, in total, to exit after ``end`` before it is SIGKILLed."""
DEFAULT_START_TIMEOUT = 5.0
"""Seconds the players have, together, to send their ``-``."""


@attrs.frozen
class StartFailure:
    """Why the player in ``seat`` did not start: DISCONNECT (could not be run, or exited),
    MALFORMED (its first byte was not ``-``) or TIMEOUT (no ``-`` in time)."""

    seat: int
    termination: Termination
    detail: str


def adopt_players(early: EarlyStart) -> list[ChildProcess]:
    """The players `launch.first_steps` started, as children of this game (inside trio)."""
    return [ChildProcess.adopt(player, max_line=MAX_PLAY_LINE) for player in early.players]


async def start_players(
    programs: Sequence[str | None],
    children: list[ChildProcess],
    timeout: float,
    *,
    early: EarlyStart | None = None,
) -> StartFailure | None:
    """Start ``programs`` in seat order, appending each child to ``children`` at once (the
    caller reaps them whatever happens), then read every ``-`` within ``timeout`` seconds.
    A seat whose program is None is not a program (a person): no child for it. Stops at the
    first failure and returns it; None when every player has started. With ``early`` the
    players were started already and ``children`` holds them (`adopt_players`)."""
    players = len(programs)
    seats = [seat for seat, program in enumerate(programs) if program is not None]
    if early is not None:
        if early.failure is not None:
            seat, reason = early.failure
            return StartFailure(seat, Termination.DISCONNECT, f"could not be started: {reason}")
    else:
        for seat in seats:
            try:
                child = await ChildProcess.spawn(
                    [str(programs[seat]), str(players), LABELS[seat]], max_line=MAX_PLAY_LINE
                )
            except SpawnFailed as exc:
                return StartFailure(seat, Termination.DISCONNECT, f"could not be started: {exc}")
            children.append(child)
    seat = 0
    with trio.move_on_after(timeout):
        for seat, child in zip(seats, children, strict=True):
            try:
                first = await child.lines.receive_exactly(len(READY))
            except LineError:
                return StartFailure(seat, Termination.DISCONNECT, "ended before sending '-'")
            if first != READY:
                return StartFailure(seat, Termination.MALFORMED, f"sent {first!r}, not '-'")
        return None
    return StartFailure(seat, Termination.TIMEOUT, f"sent no '-' within {timeout:g} s")


def program_seats(
    children: Sequence[ChildProcess], players: Sequence[PlayerInfo]
) -> list[LineSeat[ClubsState, Card]]:
    """One `LineSeat` speaking clubs per started child, in seat order."""
    codec = ClubsCodec()
    return [
        LineSeat(child.lines, codec, player)
        for child, player in zip(children, players, strict=True)
    ]


async def end_players(children: Sequence[ChildProcess], grace: float) -> list[ExitStatus]:
    """Send ``end`` to every player still running and reap all within ``grace`` seconds
    in total; shielded, so a cancelled game still leaves no child behind."""
    with trio.CancelScope(shield=True):
        deadline = trio.current_time() + grace
        async with trio.open_nursery() as nursery:
            for child in children:
                nursery.start_soon(_say_end, child, deadline)
        statuses = await stop_all(children, grace=max(0.0, deadline - trio.current_time()))
    return statuses


async def _say_end(child: ChildProcess, deadline: float) -> None:
    if not child.exited:  # (poll() would reap it, and its group could no longer be killed)
        with trio.move_on_at(deadline):
            child.lines.queue_line(END)
            await child.lines.flush()
    await child.close_stdin()
