"""Chess as the chess plug-in declares it: the library's `hub.chess.game.ChessGame` (rules,
notation, views, pictures, levels, PGN) with what the plug-in adds, its seats and the hooks of
``hub match chess`` (docs/chess.md, "Matches"):

* seats: ``uci:COMMAND`` and, on ``hub match``, a bare program are UCI engines
  (`hub.games.chess.match.engine_seat`); ``ai:N`` is `hub.chess.seats.level_seat` (the
  core `ThreadSeat` over `LevelAi`; level 4 budgets its search from both clocks);
  ``human`` reads UCI or SAN at the terminal;
* options ``--tc``, ``--opening-file``, ``--max-plies`` recorded as `ChessSettings`; the
  built-in (or a file's) openings; the arbiter's draws and the ply cap (the declaration's
  own draw policy, `hub.chess.rules.Draws.ARBITER`, and ``max_plies``) and the forfeit
  rule (a fault loses the game).

The hooks live here, not in the library, because the shared chess layer imports no game;
they import the match's pieces when called, so that listing the installed games stays cheap.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from hub.chess.game import ChessGame
from hub.core.game import Option
from hub.core.referee import Outcome

if TYPE_CHECKING:
    from hub.chess.rules import ChessState
    from hub.core.clock import TimeControl
    from hub.core.match import Fault
    from hub.games.chess.match import ChessSettings


class ChessMatchGame(ChessGame):
    """`ChessGame` with the chess plug-in's seats and match hooks (the plug-in's declaration)."""

    seat_kinds: ClassVar[Mapping[str, str]] = {"uci": "hub.games.chess.match:engine_seat"}
    """``uci:stockfish?Threads=1``: a UCI engine."""
    program_kind = "uci"
    """``hub match chess ai:4 stockfish``: a bare program is a UCI engine."""
    level_seat = "hub.games.chess.match:level_seat"
    match_person = "hub.games.chess.match:person_seat"
    match: ChessSettings | None = None
    """The settings of a match's game (`for_match`)."""

    @classmethod
    def match_options(cls) -> tuple[Option, ...]:
        from hub.games.chess.match import DEFAULT_MAX_PLIES, DEFAULT_TC

        return (
            Option("tc", DEFAULT_TC, "time control: BASE+INC seconds a game (10+0.1), 100ms or "
                   "2s a move, or none"),
            Option("opening_file", "", "openings to play, one a line: FEN, EPD or UCI moves "
                   "(default: 35 built-in balanced lines)"),
            Option("max_plies", DEFAULT_MAX_PLIES, "adjudicate a draw after N plies; 0: never",
                   low=0),
        )  # fmt: skip

    @classmethod
    def match_settings(cls, given: Mapping[str, Any]) -> dict[str, Any]:
        from hub.games.chess.match import DEFAULT_MAX_PLIES, DEFAULT_TC, match_settings

        tc = str(given.get("tc", DEFAULT_TC))
        plies = int(given.get("max_plies", DEFAULT_MAX_PLIES))
        return match_settings(tc, str(given.get("opening_file", "")), plies)

    @classmethod
    def for_match(cls, settings: Mapping[str, Any], seats: int) -> ChessMatchGame:
        from hub.chess.rules import Draws
        from hub.games.chess.match import ChessSettings

        chosen = ChessSettings.from_json(settings)
        game = cls(seats=seats, draws=Draws.ARBITER, max_plies=chosen.max_plies)
        game.match = chosen
        return game

    @classmethod
    def check_seat(cls, kind: str, command: str, spec: str) -> str | None:
        from hub.games.chess.match import check_seat

        return check_seat(spec)

    def _match(self) -> ChessSettings:
        assert self.match is not None  # a match's game (`for_match`)
        return self.match

    def match_openings(self, settings: Mapping[str, Any], count: int, seed: int) -> list[Any]:
        from hub.games.chess.openings import load_openings, pick_openings

        return pick_openings(load_openings(self._match().openings), count, seed)

    def match_start(self, opening: Any, game_id: str) -> ChessState:
        from hub.games.chess.openings import opening_state

        return opening_state(opening)

    def match_clock(self, settings: Mapping[str, Any]) -> TimeControl:
        return self._match().control

    def forfeit(self, state: ChessState, fault: Fault) -> Outcome:
        """A fault loses the game (the other side scores a win); an abort scores nothing."""
        from hub.chess.rules import WIN

        if fault.seat is None:
            return Outcome((0, 0), (), fault.termination)
        winner = 1 - fault.seat
        scores = [0, 0]
        scores[winner] = WIN
        return Outcome(scores, (winner,), fault.termination)
