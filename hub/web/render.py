"""Pure renderers: a game's state view (docs/architecture.md, "State views") to HTML.

Nothing here imports or names a game: a board is drawn from the JSON view alone, by the
game's declaration (`hub.core.commands.plugin.pictures`: its `Pictures.html`), and falls back to the
view's JSON for a game without one.
Every piece of text that came from outside (player names, move texts, card texts) is escaped.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from html import escape
from typing import TYPE_CHECKING, Any

import attrs

from hub.core.model.values import JSON, PlayerInfo

if TYPE_CHECKING:
    from hub.core.play.game import Game


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
    game's views pass through the game's `hub.core.play.game.Hidden.concealed`."""
    winners: tuple[int, ...] | None = attrs.field(default=None, converter=_winners)
    """The winners at the final ply of a finished game (None otherwise)."""
    termination: str | None = None
    before: JSON = None
    """The view before `last_move` (None: unknown): for the game's `Pictures.html_after`."""
    start: JSON = None
    """The game's first view (None: unknown): for the game's `Pictures.since_start_html`."""
    settings: Mapping[str, Any] = attrs.field(factory=dict)
    """The game's recorded settings (chess: the opening ``hub match`` started from)."""


def seat_label(game: str, seat: int, view: JSON = None) -> str:
    """How a page names a seat: a declared game's `Game.seat_name` at the position ``view``
    (White/Black in chess, South/North in Kalah, after the pie swap too), else Seat N."""
    from hub.core.commands.plugin import pictures

    declared = pictures(game)
    return declared.seat_name(seat, view) if declared is not None else f"Seat {seat + 1}"


def clock_text(seconds: float | None) -> str:
    """``1:05.3``, ``0:04.2``; an empty string for no limit."""
    if seconds is None or not math.isfinite(seconds):
        return ""
    tenths = max(0, round(seconds * 10))
    minutes, tenths = divmod(tenths, 600)
    return f"{minutes}:{tenths // 10:02d}.{tenths % 10}"


def points_text(points: float) -> str:
    """Scores as the console prints them: ``2``, ``1.5``, ``0.5``."""
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
    # every seat "winning" is a draw (or a shared result of all), which marks no one
    won = position.winners or ()
    if len(won) >= len(position.players):
        won = ()
    for seat, player in enumerate(position.players):
        classes = ["player"]
        if position.to_move == seat:
            classes.append("to-move")
        if seat in won:
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


def status_lines(position: Position) -> list[str]:
    """The lines a declared game shows under its board at ``position`` (`Pictures.status`)."""
    from hub.core.commands.plugin import pictures

    declared = pictures(position.game)
    if declared is None:
        return []
    try:
        return declared.pictures.status(
            position.view, termination=position.termination, winners=position.winners
        )
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return []  # a view that is not the game's shape


def render_board(position: Position) -> str:
    """The game's board from its view; a game (or a view) we do not know shows its JSON."""
    view = position.view
    from hub.core.commands.plugin import pictures

    declared = pictures(position.game)
    try:
        if declared is not None:
            names = [player.name for player in position.players]
            shown = view if position.reveal else concealed(declared, view)
            board = drawn(declared, position, shown, names)
            return board + since_start(declared, position, shown)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        pass  # a view that is not the documented shape: show it as it is
    return f'<pre class="view">{escape(json.dumps(view, indent=1))}</pre>'


def concealed(declared: Game[Any, Any], view: JSON) -> JSON:
    """``view`` as a spectator of a live game may see it (`hub.core.play.game.Hidden`)."""
    hidden = declared.hidden
    return view if hidden is None else hidden.concealed(view)


def drawn(declared: Game[Any, Any], position: Position, shown: JSON, names: list[str]) -> str:
    """The game's picture of ``shown``, its last move marked when the game knows how."""
    if position.last_move is None or position.before is None:
        return declared.pictures.html(shown, names)
    before = position.before if position.reveal else concealed(declared, position.before)
    try:
        return declared.pictures.html_after(shown, names, position.last_move, before)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return declared.pictures.html(shown, names)


def since_start(declared: Game[Any, Any], position: Position, shown: JSON) -> str:
    """The game's fragment about where it began (`Pictures.since_start_html`), or nothing."""
    if position.start is None:
        return ""
    start = position.start if position.reveal else concealed(declared, position.start)
    try:
        return declared.pictures.since_start_html(shown, start, position.settings)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return ""
