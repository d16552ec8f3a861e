"""A declared game at the terminal: a person's seat and the running picture, in words.

`PersonWords` is the `hub.core.play.person.PersonCodec` of every declared game: the person
sees the game's text picture of their own view, types a move in the game's notation, and
is told the legal moves after anything else (``help`` or ``?`` lists them; ``resign`` or
end of input gives the game up). `Narrator` is a `hub.core.play.vocabulary.Spectator` that prints
each move and the picture after it (the view of the one person at the terminal, else the
spectator's) and the result in words.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import trio

from hub.core.io import text
from hub.core.io.output import Output
from hub.core.model.referee import IllegalMove, Termination
from hub.core.model.values import PlayerInfo
from hub.core.play.game import BadMove, Game, legal_texts
from hub.core.play.person import AskAgain, PersonSeat
from hub.core.play.vocabulary import MatchResult, Moved, SeatFailure, Turn

RESIGN = ("resign", "quit")


def legal_line(game: Game[Any, Any], state: Any) -> str:
    """``legal moves: 1 2 3``; moves separated by commas where a move has spaces (``1, 4 3``)."""
    texts = legal_texts(game, state)
    return "legal moves: " + (", " if any(" " in text for text in texts) else " ").join(texts)


class PersonWords:
    """What a person at the terminal is shown and how what they type is read."""

    def __init__(self, game: Game[Any, Any]) -> None:
        self.game = game

    def turn_lines(self, seat: int, state: Any) -> Sequence[str]:
        return [self.game.pictures.text(self.game.view(state, seat))]

    def prompt(self, seat: int, state: Any) -> str:
        return f"{self.game.seat_name(seat, self.game.view(state, None))} to move: "

    def read_move(self, seat: int, text: str, state: Any) -> Any:
        word = text.strip()
        if word.lower() in RESIGN:
            raise SeatFailure(Termination.RESIGNATION, "resigned")
        if word in ("", "help", "?"):
            return self._ask_again(state, "type a move, or resign")
        try:
            return self.game.parse_move(state, word)
        except BadMove as exc:
            return self._ask_again(state, str(exc))

    def _ask_again(self, state: Any, why: str) -> Any:
        raise AskAgain(why, legal_line(self.game, state))

    def refused_lines(self, seat: int, move: Any, error: IllegalMove, state: Any) -> Sequence[str]:
        text = self.game.move_text(state, move)
        return [f"{text} is not allowed: {error}", legal_line(self.game, state)]


def result_words(
    game: Game[Any, Any], players: Sequence[PlayerInfo], result: MatchResult[Any, Any]
) -> str:
    """``Red (ai:4) wins``, ``South (ai:9) wins 37-11``, ``a draw``, ``Yellow (bot) wins (Red
    (you): timeout)``: `hub.core.io.text.result_words` with each seat's name and player, and the
    fault said as who lost and why."""
    outcome, fault = result.outcome, result.fault
    view = game.view(result.state, None)

    def who(seat: int) -> str:
        return f"{game.seat_name(seat, view)} ({players[seat].name})"

    because = None
    if fault is not None and fault.seat is not None:
        because = f"({who(fault.seat)}: {fault.termination.value}"
        because += f"; {fault.detail})" if fault.detail else ")"
    return text.result_words(
        who,
        len(outcome.scores),
        outcome.winners,
        outcome.scores,
        stopped=outcome.termination is Termination.ABORTED,
        detail=outcome.detail,
        fault=because,
    )


class Narrator:
    """Prints a game as it goes: the first picture, each move and the picture after it (once:
    not before the person's own next turn, whose prompt draws it), the result. ``seat`` is
    whose view to draw (the one person at the terminal), None for the spectator's."""

    def __init__(
        self, game: Game[Any, Any], out: Output, players: Sequence[PlayerInfo], seat: int | None
    ) -> None:
        self.game = game
        self.out = out
        self.players = list(players)
        self.seat = seat

    def _picture(self, state: Any) -> None:
        self.out.line(self.game.pictures.text(self.game.view(state, self.seat)))

    def started(self, state: Any) -> None:
        view = self.game.view(state, None)
        names = ", ".join(
            f"{self.game.seat_name(seat, view)}: {player.name}"
            for seat, player in enumerate(self.players)
        )
        self.out.line(f"{self.game.name}: {names}")
        if self.seat is None:
            self._picture(state)
        self.out.flush()

    def moved(self, moved: Moved[Any, Any]) -> None:
        """The move, then the picture after it: always for a spectator and at the end; for
        the person at the terminal after their own move, unless their turn goes on (their
        next prompt draws it: `PersonWords.turn_lines`); another's move is drawn by that."""
        if moved.seat < 0:  # chance's outcome, as this terminal's person may see it
            self.out.line(f"{self.game.seat_name(moved.seat)}: {moved.text_for(self.seat)}")
        else:
            name = self.game.seat_name(moved.seat, self.game.view(moved.before, None))
            who = f"{name} ({self.players[moved.seat].name})"
            self.out.line(f"{who} plays {moved.text}")
        own = moved.seat == self.seat and moved.to_move != self.seat
        if self.seat is None or own or moved.over:
            self._picture(moved.after)
        self.out.flush()

    def ended(self, result: MatchResult[Any, Any]) -> None:
        self.out.line(result_words(self.game, self.players, result))
        self.out.flush()


@attrs.define(eq=False)
class KeyboardPerson(PersonSeat[Any, Any]):
    """A person at a keyboard that other people's seats share (``hub play GAME human
    human``): ``turns``, one lock per keyboard, makes them choose one after the other, also
    in a simultaneous turn, where the loop asks every mover at once."""

    turns: trio.Lock = attrs.field(factory=trio.Lock)

    async def choose(self, turn: Turn[Any]) -> Any:
        async with self.turns:
            return await super().choose(turn)
