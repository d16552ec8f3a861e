"""Records as terminal text (pure): the header of a game, its moves, and a compact drawing of
each position from the game's state view (docs/architecture.md, "State views").

Nothing here imports a game: a declared game (`hub.core.commands.plugin.pictures`: chess, Kalah,
clubs, Connect Four) draws its own views (`hub.core.play.game.Pictures.text`, with the players'
short names); a view of any other shape (another game, or a view that breaks its game's contract)
is printed as compact JSON.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from hub.core.io import text
from hub.core.model.events import GameRecord, RecordedMove
from hub.core.model.referee import Termination
from hub.core.model.values import JSON, PlayerInfo

if TYPE_CHECKING:
    from hub.records.store import GameSummary

SETTING_WIDTH = 40
"""A setting whose JSON is longer than this is summarised (a clubs game's decks)."""


def compact_json(value: JSON) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def when(stamp: float) -> str:
    """A Unix time as local ``YYYY-MM-DD HH:MM:SS``."""
    return datetime.datetime.fromtimestamp(stamp).strftime("%Y-%m-%d %H:%M:%S")


def seconds(value: float) -> str:
    """``0.123 s``, ``12.3 s``, ``4 min 05 s``, ``1 h 02 min``."""
    if value < 10:
        return f"{value:.3f} s"
    if value < 60:
        return f"{value:.1f} s"
    minutes, secs = divmod(round(value), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def seat_label(game: str, seat: int) -> str:
    """A declared game's name of a seat for a whole game (`hub.core.play.game.Game.seat_name`
    without a position: White/Black in chess, ``player A`` in clubs, ``seat 0`` in Kalah,
    whose sides change), ``seat N`` otherwise; ``chance`` for chance's outcomes (seat -1,
    `hub.core.play.chance.CHANCE`)."""
    if seat < 0:
        return "chance"
    from hub.core.commands.plugin import pictures

    declared = pictures(game)
    if declared is not None and seat >= 0:
        return declared.seat_name(seat)
    return f"seat {seat}"


def short_name(name: str) -> str:
    """A player's name for the moves and the tables: a program's path by its file name
    (``/home/x/.venv/bin/clubber`` is ``clubber``; the header keeps the whole path)."""
    base = name.rpartition("/")[2]
    return base or name


def seat_text(record: GameRecord, seat: int) -> str:
    """``player A clubber``, ``Black ai:4``, ``seat 1 north``: the seat and its short name."""
    who = seat_label(record.game, seat)
    if 0 <= seat < len(record.players):
        who += " " + short_name(record.players[seat].name)
    return who


def player_text(player: PlayerInfo) -> str:
    about = ", ".join(part for part in (player.kind, player.spec) if part and part != player.name)
    return f"{player.name} ({about})" if about else player.name


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def setting_text(value: JSON) -> str:
    """A setting's value: a string as it is, anything else as compact JSON; a long list or
    object is only counted."""
    text = value if isinstance(value, str) else compact_json(value)
    if len(text) <= SETTING_WIDTH:
        return text
    if isinstance(value, list):
        return f"[{plural(len(value), 'item')}]"
    if isinstance(value, dict):
        return f"{{{plural(len(value), 'key')}}}"
    return text[: SETTING_WIDTH - 3] + "..."


# -- results in words ------------------------------------------------------------------------


FAULT_WORDS = {
    Termination.TIMEOUT.value: "on time",
    Termination.RESIGNATION.value: "by resignation",
    Termination.ILLEGAL_MOVE.value: "by an illegal move",
    Termination.MALFORMED.value: "by a move that was not one",
    Termination.DISCONNECT.value: "as the other side left",
}
"""How a seat's fault ended the game, said after who won: ``Black wins on time``."""


def seat_words(game: str, seat: int, view: JSON = None) -> str:
    """How the results name a seat: a declared game's `hub.core.play.game.Game.seat_name` at
    the final position (``White``, ``South``, ``North`` after Kalah's pie swap), else
    ``Seat N`` (from 1), as the pages name it."""
    from hub.core.commands.plugin import pictures

    declared = pictures(game)
    return declared.seat_name(seat, view) if declared is not None else f"Seat {seat + 1}"


def _words(
    game: str,
    seats: int,
    winners: Sequence[int],
    scores: Sequence[float],
    termination: str,
    fault: str | None,
    detail: str,
    final_state: JSON,
) -> str:
    return text.result_words(
        lambda seat: seat_words(game, seat, final_state),
        seats,
        winners,
        scores,
        stopped=termination == Termination.ABORTED.value and fault is None,
        detail=detail or None,
        fault=FAULT_WORDS.get(fault) if fault is not None else None,
    )


def result_words(record: GameRecord) -> str:
    """A finished game's result in words, the same on the pages, in ``hub games history``
    and ``show`` as at the terminal (`hub.core.io.text.result_words`, the game's own seat
    names and score, the winner's first): ``South wins 37-11``, ``Black wins on time``,
    ``White wins (checkmate)``, ``a draw``, ``stopped (undo)``."""
    fault = record.fault
    return _words(
        record.game,
        len(record.players),
        record.winners,
        record.scores,
        record.termination.value,
        None if fault is None else fault.termination.value,
        record.detail,
        record.final_state,
    )


def summary_words(summary: GameSummary) -> str:
    """`result_words` of a stored game from its summary (``hub games history``, the lobby's
    saved games), without reading its moves."""
    return _words(
        summary.game,
        len(summary.players),
        summary.winners,
        summary.scores,
        summary.termination,
        summary.fault,
        summary.detail,
        summary.final_state,
    )


def result_text(record: GameRecord) -> str:
    """`result_words`, with the fault's seat and details when a seat's fault ended it:
    ``White wins (checkmate)``, ``South wins on time (North (alice): no move in 5 s)``."""
    words = result_words(record)
    fault = record.fault
    if fault is None:
        return words
    who = seat_words(record.game, fault.seat, record.final_state)
    if 0 <= fault.seat < len(record.players):
        who += f" ({short_name(record.players[fault.seat].name)})"
    details = [fault.detail] + ([f"move {fault.move}"] if fault.move else [])
    detail = "; ".join(part for part in details if part)
    return f"{words} ({who}{': ' + detail if detail else ''})"


def header_lines(record: GameRecord, match: str | None = None) -> list[str]:
    lines = [f"game {record.game_id}: {record.game}"]
    for seat, player in enumerate(record.players):
        control = record.time_controls[seat] if seat < len(record.time_controls) else None
        clock = f", time {control}" if control and control != "none" else ""
        lines.append(f"  {seat_label(record.game, seat)}: {player_text(player)}{clock}")
    if record.settings:
        settings = " ".join(f"{k}={setting_text(v)}" for k, v in record.settings.items())
        lines.append(f"  settings: {settings}")
    if match:
        lines.append(f"  match: {match}")
    lines.append(
        f"  started {when(record.started_at)}, lasted {seconds(record.duration)}, "
        f"{plural(len(record.moves), 'move')}"
    )
    lines.append(f"  result: {result_text(record)}")
    return lines


def move_line(record: GameRecord, ply: int, move: RecordedMove) -> str:
    """``12. Black ai:4: e7e5 (0.250 s)``, ``1. player A clubber: 2C (0.001 s)``."""
    return f"{ply}. {seat_text(record, move.seat)}: {move.move} ({seconds(move.elapsed)})"


# -- positions -------------------------------------------------------------------------------


Renderer = Callable[[JSON, Sequence[PlayerInfo]], list[str]]
RENDERERS: dict[str, Renderer] = {}
"""Drawings for games without a declaration (none here: every game of hub has one)."""


def position_lines(game: str, view: JSON, players: Sequence[PlayerInfo]) -> list[str]:
    """A position of ``game`` as indented text lines (compact JSON if the view is not one
    this module knows how to draw)."""
    from hub.core.commands.plugin import pictures

    declared = pictures(game)
    if declared is not None:
        names = [short_name(player.name) for player in players]
        try:
            return ["    " + line for line in declared.pictures.text(view, names).splitlines()]
        except (KeyError, IndexError, TypeError, ValueError, AttributeError):
            pass  # a view that does not follow its game's shape: show it as it is
    renderer = RENDERERS.get(game)
    if renderer is not None and isinstance(view, dict):
        try:
            return ["    " + line for line in renderer(view, players)]
        except (KeyError, IndexError, TypeError, ValueError, AttributeError):
            pass  # a view that does not follow its game's shape: show it as it is
    return ["    " + compact_json(view)]


def replay_lines(record: GameRecord) -> list[list[str]]:
    """The replay in steps: the start, then each move with the position after it, then the
    result (`hub games show` prints one step at a time)."""
    players = record.players
    steps = [["start:", *position_lines(record.game, record.initial_state, players)]]
    for ply, move in enumerate(record.moves, start=1):
        steps.append(
            [move_line(record, ply, move), *position_lines(record.game, move.state, players)]
        )
    steps.append([f"result: {result_text(record)}"])
    return steps


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], right: str = "") -> list[str]:
    """Aligned columns; the columns named in ``right`` (by header) align right."""
    cells = [list(headers)] + [[str(cell) for cell in row] for row in rows]
    widths = [max(len(row[col]) for row in cells) for col in range(len(headers))]
    lines = []
    for row in cells:
        parts = [
            cell.rjust(width) if header in right.split() else cell.ljust(width)
            for cell, width, header in zip(row, widths, headers, strict=True)
        ]
        lines.append("  ".join(parts).rstrip())
    return lines
