"""What the pages show of a game, as JSON: a lobby row, the whole game, one ply.

A game is either running (a `LiveGame`, built from its events) or finished (its
`GameRecord`, kept in memory or read from the records store); both give the same JSON, so the
browser code does not care where a game came from. Pure functions of those values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import attrs

from hub.core.model.events import GameRecord, GameStarted, MoveMade
from hub.core.model.values import JSON, PlayerInfo
from hub.records import GameSummary
from hub.records.render import result_words, summary_words
from hub.web.render import Position, render_position, seat_label, status_lines

if TYPE_CHECKING:
    from hub.core.play.game import Game as Declaration

T = TypeVar("T")


@attrs.define(eq=False)
class LiveGame:
    """A running game as its events told it: the start, the moves so far, the latest state.

    ``moves[ply - 1]`` is the `MoveMade` of that ply, or None for a ply whose event was lost
    (the index fell behind the bus); ``stale`` marks a game that may have missed events since.
    """

    game_id: str
    game: str
    settings: dict[str, JSON]
    players: tuple[PlayerInfo, ...]
    initial: JSON
    initial_to_move: int | None
    started_at: float
    moves: list[MoveMade | None] = attrs.Factory(list)
    stale: bool = False

    @classmethod
    def started(cls, event: GameStarted) -> LiveGame:
        return cls(
            event.game_id,
            event.game,
            dict(event.settings),
            event.players,
            event.state,
            event.to_move,
            event.at,
        )

    @classmethod
    def joined(cls, event: MoveMade) -> LiveGame:
        """A game first seen at a move (its start was lost): players unknown until it ends."""
        return cls(event.game_id, "?", {}, (), None, None, event.at, stale=True)

    def add(self, event: MoveMade) -> bool:
        """Record a move; False if plies were missed before it (the pages must resync)."""
        if event.ply <= len(self.moves):
            self.moves[event.ply - 1] = event
            return False
        missed = event.ply - 1 - len(self.moves)
        self.moves.extend([None] * missed)
        self.moves.append(event)
        return missed == 0

    @property
    def ply(self) -> int:
        return len(self.moves)

    @property
    def last(self) -> MoveMade | None:
        return self.moves[-1] if self.moves else None


ShownGame = LiveGame | GameRecord
"""A game the web view shows: one being played, or one from the records."""


def players_json(players: Sequence[PlayerInfo]) -> list[dict[str, str]]:
    return [{"name": player.name, "kind": player.kind} for player in players]


def summary(game: ShownGame) -> dict[str, JSON]:
    """One lobby row."""
    if isinstance(game, LiveGame):
        last = game.last
        return {
            "id": game.game_id,
            "game": game.game,
            "rules": game.settings.get("rules"),
            "players": players_json(game.players),
            "status": "running",
            "ply": game.ply,
            "to_move": game.initial_to_move if last is None else last.to_move,
            "started_at": game.started_at,
            "ended_at": None,
            "result": "*",
            "termination": None,
            "how": None,
            "words": "",
        }
    return {
        "id": game.game_id,
        "game": game.game,
        "rules": game.settings.get("rules"),
        "players": players_json(game.players),
        "status": "finished",
        "ply": len(game.moves),
        "to_move": None,
        "started_at": game.started_at,
        "ended_at": game.ended_at,
        "result": game.result_text(),
        "termination": game.termination.value,
        "how": game.detail or game.termination.value,
        "words": result_words(game),
    }


def stored_summary(row: GameSummary) -> dict[str, JSON]:
    """A lobby row from the records store's summary of a game."""
    return {
        "id": row.game_id,
        "game": row.game,
        "rules": None,
        "players": [{"name": name, "kind": ""} for name in row.players],
        "status": "finished",
        "ply": row.moves,
        "to_move": None,
        "started_at": row.started_at,
        "ended_at": row.ended_at,
        "result": row.result,
        "termination": row.termination,
        "how": row.termination,
        "words": summary_words(row),
    }


def plies(game: ShownGame) -> int:
    return game.ply if isinstance(game, LiveGame) else len(game.moves)


def position(game: ShownGame, ply: int) -> Position | None:
    """The game at ``ply`` (0: the start); None for a ply it does not have (or lost)."""
    if not 0 <= ply <= plies(game):
        return None
    if isinstance(game, LiveGame):
        moved = game.moves[ply - 1] if ply else None
        if ply and moved is None:
            return None
        return Position(
            game=game.game,
            players=game.players,
            view=game.initial if moved is None else moved.state,
            ply=ply,
            last_move=None if moved is None else moved.move,
            to_move=game.initial_to_move if moved is None else moved.to_move,
            clocks=() if moved is None else moved.clocks,
            live=ply == game.ply,
            reveal=False,
            before=_before(game, ply) if ply else None,
            start=game.initial,
            settings=game.settings,
        )
    final = ply == len(game.moves)
    recorded = game.moves[ply - 1] if ply else None
    return Position(
        game=game.game,
        players=game.players,
        view=game.initial_state if recorded is None else recorded.state,
        ply=ply,
        last_move=None if recorded is None else recorded.move,
        to_move=None if final else game.moves[ply].seat,
        reveal=True,
        winners=game.winners if final else None,
        termination=game.termination.value if final else None,
        before=(game.moves[ply - 2].state if ply > 1 else game.initial_state) if ply else None,
        start=game.initial_state,
        settings=game.settings,
    )


def status(at: Position) -> list[str]:
    """Status lines under the board (the game's `Pictures.status`: chess's check, checkmate)."""
    return status_lines(at)


def ply_json(game: ShownGame, ply: int) -> dict[str, JSON] | None:
    """One ply for the replay: its move, the board and the status lines."""
    at = position(game, ply)
    if at is None:
        return None
    return {"ply": ply, "move": at.last_move, "html": render_position(at), "status": status(at)}


def moves_json(game: ShownGame) -> list[dict[str, JSON] | None]:
    """The moves for the list beside the board (None: a move whose event was lost)."""
    if isinstance(game, LiveGame):
        listed: list[dict[str, JSON] | None] = []
        before: JSON = game.initial
        for moved in game.moves:
            if moved is None:
                listed.append(None)
                before = None
                continue
            listed.append(
                _move(
                    game.game, moved.ply, moved.seat, moved.move, moved.elapsed, moved.state, before
                )
            )
            before = moved.state
        return listed
    views = [game.initial_state, *(moved.state for moved in game.moves)]
    return [
        _move(game.game, ply, moved.seat, moved.move, moved.elapsed, moved.state, views[ply - 1])
        for ply, moved in enumerate(game.moves, 1)
    ]


def _move(
    game: str, ply: int, seat: int, move: str, elapsed: float, view: JSON, before: JSON = None
) -> dict[str, JSON]:
    data: dict[str, JSON] = {"ply": ply, "seat": seat, "side": seat_label(game, seat, view)}
    data["move"] = move
    words = move_words(game, before, move)
    if words != move:  # (chess's SAN; most games read their notation as it is)
        data["words"] = words
    number = move_number(game, before)
    if number is not None:  # (chess's move numbers; most games are listed by ply)
        data["number"] = number
    data["elapsed"] = elapsed
    return data


def move_words(game: str, before: JSON, move: str) -> str:
    """A move as a person reads it, from the position before it (the game's
    `hub.core.play.game.Pictures.move_words`: SAN in chess); the notation's text if unknown."""
    return _from_declared(
        game, before, lambda declared: declared.pictures.move_words(before, move), move
    )


def move_number(game: str, before: JSON) -> str | None:
    """How the pages number a move (`hub.core.play.game.Pictures.move_number`: ``4.``/``4...`` in
    chess), from the position before it; None: the list's own ply numbers."""
    return _from_declared(
        game, before, lambda declared: declared.pictures.move_number(before), None
    )


def _from_declared(
    game: str, before: JSON, read: Callable[[Declaration[Any, Any]], T], otherwise: T
) -> T:
    """What the declared ``game`` says of a move from the position ``before`` it; ``otherwise``
    when the game or that position is unknown, or the view does not fit (a lost event: words
    for a page must not fail it)."""
    from hub.core.commands.plugin import pictures

    declared = pictures(game)
    if declared is None or before is None:
        return otherwise
    try:
        return read(declared)
    except Exception:
        return otherwise


def detail(game: ShownGame) -> dict[str, JSON]:
    """The whole game for its page: the lobby row, the moves and the latest position."""
    data = summary(game)
    data["moves"] = moves_json(game)
    data["settings"] = _plain(game.settings)
    latest = None
    for ply in range(plies(game), -1, -1):  # the latest ply we have (a lost one has none)
        latest = ply_json(game, ply)
        if latest is not None:
            break
    data["latest"] = latest
    if isinstance(game, GameRecord) and game.fault is not None:
        data["fault"] = {
            "seat": game.fault.seat,
            "termination": game.fault.termination.value,
            "detail": game.fault.detail,
            "move": game.fault.move,
        }
    return data


def move_json(game: LiveGame, event: MoveMade) -> dict[str, JSON]:
    """A live page's update for one move."""
    at = position(game, event.ply)
    assert at is not None
    return {
        "type": "move",
        "id": game.game_id,
        **_move(
            game.game,
            event.ply,
            event.seat,
            event.move,
            event.elapsed,
            event.state,
            _before(game, event.ply),
        ),
        "to_move": event.to_move,
        "html": render_position(at),
        "status": status(at),
    }


def _before(game: LiveGame, ply: int) -> JSON:
    """The view before move ``ply`` of a live game (None if its event was lost)."""
    if ply == 1:
        return game.initial
    earlier = game.moves[ply - 2] if ply - 2 < len(game.moves) else None
    return None if earlier is None else earlier.state


def _plain(settings: Mapping[str, JSON]) -> dict[str, JSON]:
    """Settings for the page, without bulky values (a clubs game's whole decks)."""
    return {key: value for key, value in settings.items() if len(repr(value)) <= 200}
