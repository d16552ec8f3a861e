"""Pure renderers: a game's state view (docs/architecture.md, "State views") to HTML.

Nothing here imports a game: a board is drawn from the JSON view alone, so the web view works
for any game that publishes one of the documented shapes (and falls back to the view's JSON
for a game it does not know). Every piece of text that came from outside (player names, move
texts, card texts) is escaped; the chess board comes from python-chess's ``chess.svg``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

import attrs
import chess
import chess.svg

from hub.core.values import JSON, PlayerInfo

COLOURS = ("White", "Black")


def _tuple(value: Iterable[Any]) -> tuple[Any, ...]:
    return tuple(value)


def _winners(value: Iterable[int] | None) -> tuple[int, ...] | None:
    return None if value is None else tuple(value)


@attrs.frozen
class Position:
    """What a page shows of one game at one ply."""

    game: str
    players: tuple[PlayerInfo, ...] = attrs.field(converter=_tuple)
    view: JSON
    ply: int = 0
    last_move: str | None = None
    to_move: int | None = None
    clocks: tuple[float | None, ...] = attrs.field(default=(), converter=_tuple)
    """Each seat's time left (empty: unknown, e.g. a replay from a record)."""
    live: bool = False
    """A running game at its latest ply: the mover's clock ticks on the page."""
    reveal: bool = True
    """Show hidden information (a card game's hands): only once the game is over; a live
    game's views pass through the game's `hub.core.game.Game.concealed`."""
    winners: tuple[int, ...] | None = attrs.field(default=None, converter=_winners)
    """The winners at the final ply of a finished game (None otherwise)."""
    termination: str | None = None


def seat_label(game: str, seat: int, view: JSON = None) -> str:
    """How a page names a seat: White/Black in chess, a declared game's `Game.seat_label`
    (South/North in Kalah, after the pie swap too), else Seat N."""
    if game == "chess" and seat < 2:
        return COLOURS[seat]
    from hub.core.plugin import pictures

    declared = pictures(game)
    return declared.seat_label(seat, view) if declared is not None else f"Seat {seat + 1}"


def clock_text(seconds: float | None) -> str:
    """``1:05.3``, ``0:04.2``; an empty string for no limit."""
    if seconds is None or not math.isfinite(seconds):
        return ""
    tenths = max(0, round(seconds * 10))
    minutes, tenths = divmod(tenths, 600)
    return f"{minutes}:{tenths // 10:02d}.{tenths % 10}"


def points_text(points: float) -> str:
    """Scores as the chess console prints them: ``2``, ``1.5``, ``0.5``."""
    if float(points).is_integer():
        return str(int(points))
    return f"{points:g}"


# -- the page fragment ---------------------------------------------------------------------


def render_position(position: Position) -> str:
    """The players (names, clocks, whose turn, winners) and the board, as one fragment."""
    return (
        f'<div class="position game-{escape(position.game)}">'
        f"{render_players(position)}"
        f'<div class="board">{render_board(position)}</div>'
        "</div>"
    )


def render_players(position: Position) -> str:
    items = []
    for seat, player in enumerate(position.players):
        classes = ["player"]
        if position.to_move == seat:
            classes.append("to-move")
        if position.winners is not None and seat in position.winners:
            classes.append("winner")
        clock = ""
        if seat < len(position.clocks) and position.clocks[seat] is not None:
            left = position.clocks[seat]
            running = " running" if position.live and position.to_move == seat else ""
            clock = (
                f'<span class="clock{running}" data-left="{left:.3f}">'
                f"{escape(clock_text(left))}</span>"
            )
        mark = ' <span class="mark">wins</span>' if "winner" in classes else ""
        items.append(
            f'<li class="{" ".join(classes)}">'
            f'<span class="side">{escape(seat_label(position.game, seat, position.view))}</span> '
            f'<span class="name">{escape(player.name)}</span> '
            f'<span class="kind">{escape(player.kind)}</span>{mark}{clock}</li>'
        )
    return f'<ol class="players">{"".join(items)}</ol>'


def render_board(position: Position) -> str:
    """The game's board from its view; a game (or a view) we do not know shows its JSON."""
    view = position.view
    from hub.core.plugin import pictures

    declared = pictures(position.game)
    try:
        if declared is not None:
            names = [player.name for player in position.players]
            shown = view if position.reveal else declared.concealed(view)
            return declared.picture_html(shown, names)
        if position.game == "chess":
            return chess_board(view)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        pass  # a view that is not the documented shape: show it as it is
    return f'<pre class="view">{escape(json.dumps(view, indent=1))}</pre>'


# -- chess ----------------------------------------------------------------------------------


def chess_board(view: Mapping[str, Any]) -> str:
    """python-chess's SVG board, the last move and a king in check highlighted."""
    board = chess.Board(view["fen"])
    lastmove = chess.Move.from_uci(view["lastmove"]) if view.get("lastmove") else None
    check = board.king(board.turn) if board.is_check() else None
    return chess.svg.board(board, lastmove=lastmove, check=check, size=None)


def chess_status(
    view: JSON, *, termination: str | None = None, winners: Sequence[int] | None = None
) -> list[str]:
    """The chess console's status line for a position (docs: shared/specs/chess-console.md):
    ``White is in check.``, ``Checkmate! Black wins!``, ``Stalemate!``, and after a
    resignation ``White wins!``. Derived from the FEN alone, except the resignation."""
    try:
        board = chess.Board(view["fen"])
    except (KeyError, TypeError, ValueError):
        return []
    if not any(board.generate_legal_moves()):
        if board.is_check():
            winner = COLOURS[1 if board.turn == chess.WHITE else 0]
            return [f"Checkmate! {winner} wins!"]
        return ["Stalemate!"]
    if termination == "resignation" and winners is not None and len(winners) == 1:
        return [f"{COLOURS[winners[0]]} wins!"]
    if board.is_check():
        return [f"{COLOURS[0 if board.turn == chess.WHITE else 1]} is in check."]
    return []
