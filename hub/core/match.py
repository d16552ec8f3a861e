"""The match loop: drive a `Referee` and its seats until the game ends or a seat fails.

A seat is anything that can choose a move for a state (a child process, a socket, an AI,
a person at the terminal) and be told what happened. `run_match` owns the turn order:
it asks the referee whose turn it is, awaits that seat's move, applies it through the
referee (an `IllegalMove` ends the match with that seat at fault), tells every seat, and
records the transcript. Transport failures are raised by seats as `SeatFailure` so that
the caller can map "who broke what" to its own exit statuses or protocol replies.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Generic, Protocol, TypeVar

import attrs

from hub.core.referee import IllegalMove, Outcome, Referee

S = TypeVar("S")
M = TypeVar("M")
S_contra = TypeVar("S_contra", contravariant=True)
M_contra = TypeVar("M_contra", contravariant=True)


class SeatFailure(Exception):
    """A seat could not produce a move: its peer quit, sent garbage, timed out, ...

    ``reason`` is a short machine-friendly word chosen by the seat (``"quit"``,
    ``"malformed"``, ``"timeout"``); the game's front end maps it to its own messages.
    """

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


class Observer(Protocol[S_contra, M_contra]):
    """Anything told about the game as it goes: seats, a transcript printer, a spectator."""

    async def begin(self, state: S_contra) -> None:
        """The game starts in ``state``."""
        ...

    async def observe(self, before: S_contra, move: M_contra, after: S_contra) -> None:
        """``move`` (by whichever seat) took the game from ``before`` to ``after``."""
        ...


class Seat(Observer[S_contra, M], Protocol[S_contra, M]):
    """One participant, as the match loop sees it."""

    async def choose(self, state: S_contra) -> M:
        """This seat's move in ``state``; raises `SeatFailure` if it cannot give one."""
        ...


@attrs.frozen
class Fault:
    """Why a match stopped early: the seat at fault, and either an illegal move or a failure."""

    seat: int
    error: IllegalMove | SeatFailure
    move: object = None


@attrs.define
class MatchResult(Generic[S, M]):
    """The final state, the moves played in order (seat, move), and the outcome or fault."""

    state: S
    moves: list[tuple[int, M]]
    outcome: Outcome | None
    fault: Fault | None = None


async def run_match(
    referee: Referee[S, M],
    state: S,
    seats: Sequence[Seat[S, M]],
    observers: Sequence[Observer[S, M]] = (),
) -> MatchResult[S, M]:
    """Play from ``state`` until the referee reports an outcome or a seat is at fault.

    Observers are told of every move before the seats are (a transcript printed before the
    players hear of a card reads in the order things happened).
    """
    if len(seats) != referee.seats(state):
        raise ValueError(f"{len(seats)} seats for a {referee.seats(state)}-seat game")
    moves: list[tuple[int, M]] = []
    everyone: list[Observer[S, M]] = [*observers, *seats]
    for each in everyone:
        await each.begin(state)
    while (mover := referee.to_move(state)) is not None:
        try:
            move = await seats[mover].choose(state)
        except SeatFailure as exc:
            return MatchResult(state, moves, None, Fault(mover, exc))
        try:
            after = referee.apply(state, move)
        except IllegalMove as exc:
            return MatchResult(state, moves, None, Fault(mover, exc, move))
        moves.append((mover, move))
        for each in everyone:
            await each.observe(state, move, after)
        state = after
    return MatchResult(state, moves, referee.outcome(state))
