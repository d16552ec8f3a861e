"""Chess, declared: the game of the chess plug-in as one `hub.core.play.game.Game`.

The rules are this class's own methods over `hub.chess.rules`' pure functions; its draw
policy is a setting (``draws``: by default the FIDE automatic draws, so that every game ends;
none for UQChess and the console; an arbiter's for matches) with a ply cap (``max_plies``).
The notation and the view are `hub.chess.notation`'s (UCI move
texts; the view ``{"fen", "lastmove", "check", "turn"}`` that the records, the web view and
UQChess's records share). Its facets: the players levels 1-4 of `hub.chess.search` (`ai`),
the pictures `hub.chess.pictures`' (`ChessPictures`), the console's running score
(`series`) and draws by agreement (`agreed_draws`); the export is PGN (`hub.chess.pgn`).
Seat 0 plays White.

``hub play chess`` stays the console (shared/specs/chess-console.md); the plug-in declares a
subclass with its seats (UCI engines) and the hooks of ``hub match chess``
(`hub.games.chess.game.ChessMatchGame`) and leaves ``hub serve chess`` out
(docs/decisions.md). The declaration gives the
generic layers chess: ``hub games show``, the web board, the console page's score and PGN.
The module imports python-chess only when a game is built, so that listing the installed
games stays cheap.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from hub.core.model.referee import IllegalMove, Outcome
from hub.core.model.values import JSON
from hub.core.play.game import (
    AgreedDraws,
    Ai,
    BadMove,
    Exporter,
    Game,
    Option,
    Pictures,
    Series,
    SettingsError,
)

if TYPE_CHECKING:
    from hub.chess.rules import ChessState, Draws
    from hub.core.model.events import GameRecord
    from hub.core.play.threads import StopFlag

STARTING_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
AI_SECONDS = 1.0
"""Level 4's thinking time a move (the console's default ``--movetime``)."""
DRAW_MARGIN = 100
"""How much worse, in centipawns, the built-in players must stand to accept a draw."""
UCI_MOVE = re.compile(r"[a-h][1-8][a-h][1-8][qrbnQRBN]?")
SESSION_RULES = "console"
"""The ``rules`` setting of the console's games (and of ``hub match chess``'s, which play by
its rules): the games whose running score the web view's ``/console`` page shows."""


def pgn_export(record: GameRecord, match_id: str | None, index: int | None) -> str:
    """``hub games export --format pgn``: the record as PGN (`hub.chess.pgn.pgn_text`)."""
    from hub.chess.pgn import pgn_text

    return pgn_text(record, match_id=match_id, index=index)


class ChessPictures(Pictures):
    """The chess pictures (`hub.chess.pictures`) and move words (SAN, move numbers)."""

    def move_words(self, before: JSON, move: str) -> str:
        """SAN from the position before the move (``Nf3``, ``exd5``, ``O-O``, ``e8=Q+``)."""
        import chess

        board = chess.Board(before["fen"])
        parsed = chess.Move.from_uci(move)
        return board.san(parsed) if board.is_legal(parsed) else move

    def move_number(self, before: JSON) -> str | None:
        """The move's number from the FEN before it: ``4.`` (White), ``4...`` (Black)."""
        fields = str(before["fen"]).split()
        number = fields[5] if len(fields) > 5 else "1"
        return f"{number}." if fields[1:2] != ["b"] else f"{number}..."

    def text(self, view: JSON, names: Sequence[str] = ()) -> str:
        from hub.chess.pictures import text_lines

        return "\n".join(text_lines(view))

    def html(self, view: JSON, names: Sequence[str] = ()) -> str:
        from hub.chess.pictures import board_svg

        return board_svg(view)

    def since_start_html(self, view: JSON, start: JSON, settings: Mapping[str, Any]) -> str:
        from hub.chess.pictures import since_start_html

        return since_start_html(view, start, settings)

    def status(
        self, view: JSON, *, termination: str | None = None, winners: Sequence[int] | None = None
    ) -> list[str]:
        from hub.chess.pictures import status_lines

        return status_lines(view, termination=termination, winners=winners)


def console_score(settings: Mapping[str, Any]) -> list[float] | None:
    """The console's score before a game, from its ``score`` setting (``{"white": 1,
    "black": 0.5}``) by seat; ``[]`` for one that gives none; None for a game not played by
    the console's rules."""
    if settings.get("rules", SESSION_RULES) != SESSION_RULES:
        return None
    score = settings.get("score")
    if not isinstance(score, Mapping):
        return []
    return [float(score.get(name.lower(), 0)) for name in ChessGame.seat_names]


def prepare_ai() -> None:
    """Import the search before the clocks run (its first move would pay for it)."""
    import hub.chess.search  # noqa: F401


def chess_ai(
    game: Game[Any, Any], state: ChessState, level: int, seconds: float, stop: StopFlag
) -> str:
    """Level ``level`` of `hub.chess.search` (level 4 thinks ``seconds``, the core's budget
    from its clocks, at most `AI_SECONDS`); the choices of levels 1-3 are seeded by the game
    so far, so that their games replay exactly. Level 4 first offers level 3's move, which
    the seat's hard stop plays if the search has not answered in time."""
    from hub.chess.search import ComputerPlayer, Limits

    rng = random.Random(" ".join((state.start_fen, *state.moves)))
    if level == 4:  # for the seat's hard stop: level 3's move (a few ms), its own generator
        from hub.chess.search import level3

        stop.offer(level3(state.board, random.Random(0)).uci())
    player = ComputerPlayer(level, rng, Limits(movetime=max(0.001, min(AI_SECONDS, seconds))))
    return player.choose(state.board.copy(), should_stop=stop.is_set).uci()


def agreed_draw(state: ChessState) -> Outcome:
    """Chess has draws: ½-½ by agreement."""
    from hub.chess.rules import BLACK_SEAT, DRAW, WHITE_SEAT

    return Outcome((DRAW, DRAW), {WHITE_SEAT, BLACK_SEAT}, detail="by agreement")


def accepts_draw(state: ChessState, seat: int) -> bool:
    """The built-in players accept a draw when their static evaluation says their side
    stands worse than `DRAW_MARGIN` centipawns, and decline it otherwise."""
    from hub.chess.search import evaluate

    board = state.board
    mine = board.turn == (seat == 0)  # (True is White's turn; White is seat 0)
    return (evaluate(board) if mine else -evaluate(board)) < -DRAW_MARGIN


class ChessGame(Game["ChessState", str]):
    """Chess from ``--fen`` (default the usual start); White is seat 0."""

    name = "chess"
    summary = "chess in the terminal, people or computer levels 1-4 (hub engine: our UCI engine)"
    options = (Option("fen", STARTING_FEN, "the start position, as a FEN"),)
    seat_names = ("White", "Black")
    exports: ClassVar[Mapping[str, Exporter]] = {"pgn": pgn_export}
    pictures = ChessPictures()
    ai = Ai(range(1, 5), chess_ai, prepare=prepare_ai)
    series = Series("console", console_score)
    """The console's games: the web view's ``/console`` page follows the latest."""
    agreed_draws = AgreedDraws(agreed_draw, accepts_draw)

    def __init__(
        self,
        settings: Mapping[str, object] | None = None,
        seats: int = 0,
        *,
        draws: Draws | None = None,
        max_plies: int = 0,
    ) -> None:
        """``draws``: the draw policy (None: `Draws.FIDE`; the console's and UQChess's have
        none, a match's an arbiter's); ``max_plies``: adjudicate a draw after that many
        plies (0: never)."""
        super().__init__(settings, seats)
        from hub.chess import notation, rules

        self._rules = rules
        self.draws = rules.Draws.FIDE if draws is None else draws
        self.max_plies = max_plies
        self._notation = notation
        try:
            self.first = rules.initial(str(self.settings["fen"]).strip())
        except ValueError as exc:
            raise SettingsError(f"fen: {exc}") from None
        if not self.first.board.is_valid():
            raise SettingsError(f"fen: not a legal position: {self.settings['fen']!r}")

    # -- rules ---------------------------------------------------------------------------------

    def start(self, rng: random.Random) -> ChessState:
        return self.first

    def seats(self, state: ChessState) -> int:
        return 2

    def to_move(self, state: ChessState) -> int | None:
        return None if self.outcome(state) is not None else state.turn_seat

    def legal_moves(self, state: ChessState) -> Sequence[str]:
        return [] if self.outcome(state) is not None else self._rules.legal_moves(state)

    def candidate_moves(self, state: ChessState) -> Iterable[str]:
        """Legal moves, pseudo-legal ones for either side, and malformed-but-parsable ones."""
        return self._rules.candidate_moves(state)

    def apply(self, state: ChessState, move: str) -> ChessState:
        if self.outcome(state) is not None:
            raise IllegalMove("the game is over")
        return self._rules.play(state, move)

    def outcome(self, state: ChessState) -> Outcome | None:
        return self._rules.outcome(state, self.draws, self.max_plies)

    # -- notation and views --------------------------------------------------------------------

    def move_text(self, state: ChessState, move: str) -> str:
        return self._notation.move_text(state, move)

    def parse_move(self, state: ChessState, text: str) -> str:
        """Any move in UCI's shape (``e2e4``, ``e7e8q``): the rules refuse an illegal one."""
        move = text.strip()
        if not UCI_MOVE.fullmatch(move):
            raise BadMove(f"{move[:40]!r} is not a move in UCI notation (e2e4, e7e8q)")
        return self._notation.move_text(state, move)

    def view(self, state: ChessState, seat: int | None = None) -> JSON:
        return self._notation.state_view(state)
