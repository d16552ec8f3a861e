"""Pure renderers: a game's state view (docs/architecture.md, "State views") to HTML.

Nothing here imports a game: a board is drawn from the JSON view alone, by the game's
declaration (`hub.core.plugin.pictures`: its `html` picture) or, for Kalah and clubs, from
their documented shapes (and falls back to the view's JSON for a game it does not know).
Every piece of text that came from outside (player names, move texts, card texts) is escaped.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

import attrs

from hub.core.values import JSON, PlayerInfo

SUITS = {
    "S": ("\u2660", "black"),
    "C": ("\u2663", "black"),
    "D": ("\u2666", "red"),
    "H": ("\u2665", "red"),
}


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
    """Show hidden information (clubs hands): only once the game is over."""
    winners: tuple[int, ...] | None = attrs.field(default=None, converter=_winners)
    """The winners at the final ply of a finished game (None otherwise)."""
    termination: str | None = None


def seat_label(game: str, seat: int, view: JSON = None) -> str:
    """How a page names a seat: a declared game's seat name (White/Black in chess),
    South/North in Kalah, else Seat N."""
    if game == "kalah" and seat < 2 and isinstance(view, Mapping):
        return "South" if (seat == 0) != bool(view.get("swapped")) else "North"
    from hub.core.plugin import pictures

    declared = pictures(game)
    return declared.seat_name(seat) if declared is not None else f"Seat {seat + 1}"


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


def status_lines(position: Position) -> list[str]:
    """The lines a declared game shows under its board at ``position`` (`Game.status`)."""
    from hub.core.plugin import pictures

    declared = pictures(position.game)
    if declared is None:
        return []
    try:
        return declared.status(
            position.view, termination=position.termination, winners=position.winners
        )
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return []  # a view that is not the game's shape


def render_board(position: Position) -> str:
    """The game's board from its view; a game (or a view) we do not know shows its JSON."""
    view = position.view
    from hub.core.plugin import pictures

    declared = pictures(position.game)
    try:
        if declared is not None:
            return declared.html(view)
        if position.game == "kalah":
            return kalah_board(view)
        if position.game == "clubs":
            return clubs_table(view, position.players, reveal=position.reveal)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        pass  # a view that is not the documented shape: show it as it is
    return f'<pre class="view">{escape(json.dumps(view, indent=1))}</pre>'


# -- kalah ----------------------------------------------------------------------------------


def kalah_board(view: Mapping[str, Any]) -> str:
    """The board with South along the bottom (holes 1..h left to right, its store on the
    right) and North along the top (right to left, its store on the left)."""
    holes = int(view["holes"])
    board = [int(count) for count in view["board"]]
    if holes < 1 or len(board) != 2 * holes + 2:
        raise ValueError("not a Kalah board")
    south = 1 if view.get("swapped") else 0
    north = 1 - south
    to_move = view.get("to_move")

    def store(seat: int, where: str) -> str:
        count = board[seat * (holes + 1) + holes]
        return (
            f'<div class="store {where}" title="{seat_label("kalah", seat, view)} store">'
            f"<b>{count}</b></div>"
        )

    def row(seat: int, where: str) -> str:
        numbers = range(1, holes + 1) if where == "south" else range(holes, 0, -1)
        turn = " to-move" if to_move == seat else ""
        cells = "".join(
            f'<div class="hole"><b>{board[seat * (holes + 1) + n - 1]}</b><i>{n}</i></div>'
            for n in numbers
        )
        return f'<div class="row {where}{turn}">{cells}</div>'

    swapped = '<p class="note">sides swapped (pie rule)</p>' if view.get("swapped") else ""
    return (
        f'<div class="kalah" style="--holes: {holes}">'
        f"{store(north, 'north')}{row(north, 'north')}{row(south, 'south')}"
        f"{store(south, 'south')}</div>{swapped}"
    )


# -- clubs ----------------------------------------------------------------------------------


def card_html(text: str) -> str:
    """A card as clubs prints it (``10H``, ``AS``) with its suit symbol and colour."""
    rank, suit = text[:-1], text[-1:]
    symbol, colour = SUITS.get(suit, (suit, "black"))
    return f'<span class="card {colour}">{escape(rank)}{escape(symbol)}</span>'


def clubs_table(view: Mapping[str, Any], players: Sequence[PlayerInfo], *, reveal: bool) -> str:
    """The trick in play order, each seat's score and hand (its cards once the game is over,
    only the number of cards while it runs: the page is public)."""
    count = int(view["players"])
    leader = int(view["leader"])
    to_move = view.get("to_move")
    trick = [str(card) for card in view["trick"]]
    scores = [int(score) for score in view["scores"]]
    hands = [[str(card) for card in hand] for hand in view["hands"]]
    played = "".join(
        f'<li>{card_html(card)} <span class="by">'
        f"{escape(_name(players, (leader + i) % count))}</span></li>"
        for i, card in enumerate(trick)
    )
    rows = []
    for seat in range(count):
        hand = hands[seat] if seat < len(hands) else []
        if reveal:
            cards = " ".join(card_html(card) for card in hand) or "&mdash;"
        else:
            cards = f'<span class="backs">{len(hand)} cards</span>'
        classes = "seat to-move" if to_move == seat else "seat"
        lead = " (leads)" if seat == leader else ""
        rows.append(
            f'<tr class="{classes}"><th>{escape(_name(players, seat))}{lead}</th>'
            f'<td class="score">{scores[seat] if seat < len(scores) else ""}</td>'
            f'<td class="hand">{cards}</td></tr>'
        )
    return (
        f'<div class="clubs"><p>Round {int(view["round"])}, playing to '
        f"{int(view['winscore'])}</p>"
        f'<ol class="trick">{played}</ol>'
        "<table><thead><tr><th>player</th><th>score</th><th>hand</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _name(players: Sequence[PlayerInfo], seat: int) -> str:
    return players[seat].name if seat < len(players) else f"Seat {seat + 1}"
