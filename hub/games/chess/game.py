"""Chess as the chess plug-in declares it: the library's `hub.chess.game.ChessGame` (rules,
notation, views, pictures, levels, PGN) with what the plug-in adds, its seats and the hooks of
``hub match chess`` (docs/chess.md, "Matches"):

* seats: ``uci:COMMAND`` and, on ``hub match``, a bare program are UCI engines
  (`hub.games.chess.match.engine_seat`); ``ai:N`` is `hub.chess.seats.level_seat` (the
  core `ThreadSeat` over `LevelAi`; level 4 budgets its search from both clocks);
  ``human`` reads UCI or SAN at the terminal;
* its set-up (`ChessSetup`): options ``--tc``, ``--opening-file``, ``--max-plies``
  recorded as `ChessSettings`; the built-in (or a file's) openings; the arbiter's draws and
  the ply cap (the declaration's own draw policy, `hub.chess.rules.Draws.ARBITER`, and
  ``max_plies``, in the game its `MatchPlan` carries) and the forfeit rule (a fault loses
  the game).

The hooks live here, not in the library, because the shared chess layer imports no game;
they import the match's pieces when called, so that listing the installed games stays cheap.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hub.chess.game import ChessGame
from hub.core.model.referee import Outcome
from hub.core.play.game import Game, MatchPlan, MatchSetup, Option, Programs

if TYPE_CHECKING:
    from contextlib import AbstractAsyncContextManager

    from hub.chess.rules import ChessState
    from hub.core.model.bus import EventBus
    from hub.core.play.kit import GameSpec
    from hub.core.play.vocabulary import Fault, Seat


def engine_seat(
    game: Game[Any, Any], command: str, *, seat: int, spec: str, seed: int, detail: Any = None
) -> Seat[Any, Any]:
    """``uci:stockfish?Threads=1``: a UCI engine (`hub.games.chess.match.engine_seat`)."""
    from hub.games.chess.match import engine_seat as engine

    return engine(game, command, seat=seat, spec=spec, seed=seed)


def level_seat(
    game: Game[Any, Any], command: str, *, seat: int, spec: str, seed: int, detail: Any = None
) -> Seat[Any, Any]:
    """``ai:N``: level N of `hub.chess.search`, budgeting its search from both clocks."""
    from hub.games.chess.match import level_seat as level

    return level(game, command, seat=seat, spec=spec, seed=seed)


def person_seat(
    game: Game[Any, Any], spec: GameSpec, events: EventBus
) -> AbstractAsyncContextManager[Seat[Any, Any]]:
    """``human`` on ``hub match chess``: UCI or SAN typed at the terminal."""
    from hub.games.chess.match import person_seat as person

    return person(game, spec, events)


def import_seats() -> None:
    """Import the seats' implementation (`Programs.warm`: a match's worker, ahead of its
    first game): the engines' and the levels' seats."""
    import hub.games.chess.match  # noqa: F401


def check_engine(kind: str, command: str, spec: str) -> str | None:
    from hub.games.chess.players import check_seat

    return check_seat(spec)


class ChessSetup(MatchSetup):
    """``hub match chess``: ``--tc``, ``--opening-file``, ``--max-plies`` recorded as
    `ChessSettings`; the built-in (or a file's) openings; each game's rules with the
    arbiter's draws (`hub.chess.rules.Draws.ARBITER`) and the ply cap."""

    def options(self, game: type[Game[Any, Any]]) -> tuple[Option, ...]:
        from hub.games.chess.players import DEFAULT_MAX_PLIES, DEFAULT_TC

        return (
            Option("tc", DEFAULT_TC, "time control: BASE+INC seconds a game (10+0.1), 100ms or "
                   "2s a move, or none"),
            Option("opening_file", "", "openings to play, one a line: FEN, EPD or UCI moves "
                   "(default: 35 built-in balanced lines)"),
            Option("max_plies", DEFAULT_MAX_PLIES, "adjudicate a draw after N plies; 0: never",
                   low=0),
        )  # fmt: skip

    def settings(self, game: type[Game[Any, Any]], given: Mapping[str, Any]) -> dict[str, Any]:
        from hub.games.chess.players import DEFAULT_MAX_PLIES, DEFAULT_TC, match_settings

        tc = str(given.get("tc", DEFAULT_TC))
        plies = int(given.get("max_plies", DEFAULT_MAX_PLIES))
        return match_settings(tc, str(given.get("opening_file", "")), plies)

    def openings(
        self, game: type[Game[Any, Any]], settings: Mapping[str, Any], count: int, seed: int
    ) -> list[Any]:
        from hub.games.chess.openings import load_openings, pick_openings
        from hub.games.chess.players import ChessSettings

        chosen = ChessSettings.from_json(settings)
        return pick_openings(load_openings(chosen.openings), count, seed)

    def plan(
        self, game: type[Game[Any, Any]], settings: Mapping[str, Any], seats: int, opening: Any,
        game_id: str,
    ) -> MatchPlan[Any, Any]:  # fmt: skip
        from hub.chess.rules import Draws
        from hub.games.chess.openings import opening_state
        from hub.games.chess.players import ChessSettings

        chosen = ChessSettings.from_json(settings)
        chess_game = ChessMatchGame(seats=seats, draws=Draws.ARBITER, max_plies=chosen.max_plies)
        return MatchPlan(chess_game, chosen.control, opening_state(opening))


class ChessMatchGame(ChessGame):
    """`ChessGame` with the chess plug-in's seats and match set-up (its declaration)."""

    programs = Programs(
        {"uci": engine_seat},
        "uci",
        level=level_seat,
        person=person_seat,
        check=check_engine,
        warm=import_seats,
    )
    """``uci:COMMAND`` and, on ``hub match``, a bare program are UCI engines."""
    setup = ChessSetup()

    def forfeit(self, state: ChessState, fault: Fault) -> Outcome:
        """A fault loses the game (the other side scores a win); an abort scores nothing."""
        from hub.chess.rules import WIN

        if fault.seat is None:
            return Outcome((0, 0), (), fault.termination)
        winner = 1 - fault.seat
        scores = [0, 0]
        scores[winner] = WIN
        return Outcome(scores, (winner,), fault.termination)
