"""The terminal's view of a Kalah game, fed only by the core match loop's events.

A `BoardPrinter` is an `hub.core.model.bus.EventBus.listen` callback: it rebuilds the board
from each event's state view (`hub.games.kalah.codec.state_from_view`), prints a line per
move and the board after it, and at the end the final board and a result line. Subclasses
say how a move and a result read for their audience: `GameView` for players and
spectators at the terminal, the server's own for the person playing a client. Listeners
never block: output is written, not awaited.

`remote_result_line` says in words how a game of our client against a server ended (the
client has no events: it knows the server's result word and what led to it, a `ResultCause`).
"""

from __future__ import annotations

import enum

import attrs

from hub.core.io.output import Output
from hub.core.model.events import Event, GameEnded, GameRecord, GameStarted, MoveMade
from hub.core.model.referee import Termination
from hub.games.kalah.codec import FAULT_WORDS, state_from_view
from hub.games.kalah.console import describe_move, draw_board, side_name
from hub.games.kalah.protocol import LOSER, TIE, WINNER
from hub.games.kalah.rules import KalahState


def verb(name: str, base: str) -> str:
    """``you win`` but ``AI wins``."""
    return f"{name} {base}" if name == "you" else f"{name} {base}s"


@attrs.define(eq=False)
class BoardPrinter:
    """Prints one game (``game_id``; None: any game on the bus) with seat ``bottom`` at the
    bottom of the board and ``names`` by seat."""

    out: Output
    names: tuple[str, str]
    bottom: int
    draw_moves: bool = True
    """Draw the board after every move that does not end the game."""
    quiet: bool = False
    """Print no moves (the final board and result all the same)."""
    game_id: str | None = None
    _before: KalahState | None = None

    def __call__(self, event: Event) -> None:
        if self.game_id is not None and event.game_id != self.game_id:
            return
        if isinstance(event, GameStarted):
            self._before = state_from_view(event.state)
        elif isinstance(event, MoveMade):
            after = state_from_view(event.state)
            before, self._before = self._before or after, after
            if self.quiet:
                return
            self.out.line(self.move_line(event.seat, event.move, before))
            if self.draw_moves and event.to_move is not None:
                self.draw(after)
            self.out.flush()
        elif isinstance(event, GameEnded):
            self.draw(state_from_view(event.record.final_state))
            self.out.line(self.result_line(event.record))
            self.out.flush()

    def draw(self, state: KalahState) -> None:
        self.out.line("\n".join(draw_board(state, self.bottom, self.names)))

    def move_line(self, seat: int, move: str, before: KalahState) -> str:
        """How the move ``move`` (its protocol text) by ``seat`` is told."""
        raise NotImplementedError

    def result_line(self, record: GameRecord) -> str:
        raise NotImplementedError


@attrs.define(eq=False)
class GameView(BoardPrinter):
    """A game as its players or spectators at the terminal see it (a local game, a person in
    ``hub match``): ``AI 1 (South) sows 4 3``, then ``AI 1 wins 30-18`` and why."""

    def move_line(self, seat: int, move: str, before: KalahState) -> str:
        return f"{self.names[seat]} ({side_name(before, seat)}) {describe_move(move)}"

    def result_line(self, record: GameRecord) -> str:
        scores = record.scores
        if record.termination is Termination.ABORTED:
            return "game aborted"
        if len(record.winners) == 2:
            return f"tie, {scores[0]}-{scores[1]}"
        (winner,) = record.winners
        fault = record.fault
        why = f" ({FAULT_WORDS[fault.termination]}: {self.names[fault.seat]})" if fault else ""
        won = verb(self.names[winner], "win")
        return f"{won} {scores[winner]}-{scores[1 - winner]}{why}"


class ResultCause(enum.Enum):
    """What led to the result a server sent our client."""

    RULES = "the game ended by the rules"
    LATE = "we were too slow (TIME)"
    REFUSED = "our move was refused (ILLEGAL)"
    SERVER_LATE = "the server was too slow (its TIME)"
    SERVER_ILLEGAL = "the server's move was illegal"
    SERVER_ENDED = "a result with no reason we know of"


def remote_result_line(
    word: str, ending: ResultCause, names: tuple[str, str], stores: tuple[int, int]
) -> str:
    """The result of a remote game in words: ``you win 16-5``, ``opponent wins 16-5``,
    ``tie, 8-8``, ``you lost on time (stores: you 0, opponent 3)``, ``the server ended the
    game: you win (...)``. ``word`` is the server's (WINNER, LOSER or TIE, from our point
    of view), ``names`` ours and our opponent's (the server's AI, a person at the server or
    another client: the client cannot tell which), ``stores`` ours and the opponent's. The
    server is named only for what the server itself does (refuse a move, end the game)."""
    me, opponent = names
    mine, theirs = stores
    detail = f"(stores: {me} {mine}, {opponent} {theirs})"
    if ending is ResultCause.RULES:
        if word == WINNER and mine > theirs:
            return f"{verb(me, 'win')} {mine}-{theirs}"
        if word == LOSER and mine < theirs:
            return f"{verb(opponent, 'win')} {theirs}-{mine}"
        if word == TIE and mine == theirs:
            return f"tie, {mine}-{theirs}"
    elif word == LOSER and ending is ResultCause.LATE:
        return f"{me} lost on time {detail}"
    elif word == LOSER and ending is ResultCause.REFUSED:
        return f"{me} lost: the server refused the move as illegal {detail}"
    elif word == WINNER and ending is ResultCause.SERVER_LATE:
        return f"{verb(me, 'win')}: the opponent ran out of time {detail}"
    elif word == WINNER and ending is ResultCause.SERVER_ILLEGAL:
        return f"{verb(me, 'win')}: the opponent played an illegal move {detail}"
    verdict = {WINNER: verb(me, "win"), LOSER: verb(me, "lose"), TIE: "tie"}.get(word, word)
    return f"the server ended the game: {verdict} {detail}"
