"""Records as terminal text (pure): the header of a game, its moves, and a compact drawing of
each position from the game's state view (docs/architecture.md, "State views").

Nothing here imports a game: a declared game (`hub.core.plugin.pictures`: chess, Kalah,
clubs, Connect Four) draws its own views (`hub.core.game.Pictures.text`, with the players' short
names); a view of any other shape (another game, or a view that breaks its game's contract)
is printed as compact JSON.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable, Sequence
from typing import Any

from hub.core.events import GameRecord, RecordedMove
from hub.core.values import JSON, PlayerInfo

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
    """A declared game's name of a seat for a whole game (`hub.core.game.Game.seat_name`
    without a position: White/Black in chess, ``player A`` in clubs, ``seat 0`` in Kalah,
    whose sides change), ``seat N`` otherwise."""
    from hub.core.plugin import pictures

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


def result_text(record: GameRecord) -> str:
    """``1-0 (normal: checkmate)``, ``0-1 (timeout by White alice: no move in 5 s)``."""
    how = record.termination.value
    fault = record.fault
    if fault is not None:
        how += f" by {seat_text(record, fault.seat)}"
        details = [fault.detail] + ([f"move {fault.move}"] if fault.move else [])
        detail = "; ".join(part for part in details if part)
    else:
        detail = record.detail
    return f"{winners_text(record)} ({how}{': ' + detail if detail else ''})"


def winners_text(record: GameRecord) -> str:
    """The record's result (``1-0``, ``1/2-1/2``), or with more than two seats who won, by
    seat: ``winner: player C clubber``, ``winners: player A clubber, player C p3``."""
    if len(record.players) == 2 or not record.winners:
        return record.result_text()
    noun = "winner" if len(record.winners) == 1 else "winners"
    return f"{noun}: " + ", ".join(seat_text(record, seat) for seat in record.winners)


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
    from hub.core.plugin import pictures

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
