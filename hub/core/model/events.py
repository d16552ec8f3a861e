"""The one event stream's events: what every game publishes, and the record of a game.

The match loop publishes three kinds of event, each a frozen, JSON-serialisable value:

* `GameStarted`: the game's kind, settings, players, time controls and first state;
* `MoveMade`: who moved, the move in the game's own notation, the state after it, the time
  the move took and every seat's clock;
* `GameEnded`: the `GameRecord`, the same shape for every game (players, settings, moves,
  result, termination, times).

States in events are *views*: plain JSON values a game chooses (a FEN, a Kalah board, a
clubs table) so that subscribers (records, the web view, a progress line) never import a
game. An `hub.core.model.bus.EventBus` fans them out. The loop makes an event only for a bus with
a subscriber, and imports this module only then (or when a record is asked for): a game
nobody watches or records builds none of these classes (`PlayerInfo` and `JSON` are in
hub.core.model.values).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, TypeAlias

import attrs

from hub.core.model.referee import Termination
from hub.core.model.values import JSON, PlayerInfo

RECORD_VERSION = 1


def _tuple(value: Sequence[Any]) -> tuple[Any, ...]:
    return value if type(value) is tuple else tuple(value)


def _settings(value: Mapping[str, JSON]) -> dict[str, JSON]:
    return dict(value)


@attrs.frozen
class RecordedMove:
    """One move of a record: the seat, its text in the game's notation, seconds it took,
    and the state after it (a view)."""

    seat: int
    move: str
    elapsed: float
    state: JSON = None


@attrs.frozen
class FaultInfo:
    """The seat that ended the game early, how (a `Termination`), and the details."""

    seat: int
    termination: Termination
    detail: str = ""
    move: str | None = None
    """The offending move in the game's notation (illegal, or played after the deadline)."""


@attrs.frozen
class GameRecord:
    """A finished (or aborted) game, the same shape for every game type."""

    game_id: str
    game: str
    settings: dict[str, JSON] = attrs.field(converter=_settings)
    players: tuple[PlayerInfo, ...] = attrs.field(converter=_tuple)
    time_controls: tuple[str, ...] = attrs.field(converter=_tuple)
    initial_state: JSON
    moves: tuple[RecordedMove, ...] = attrs.field(converter=_tuple)
    final_state: JSON
    scores: tuple[float, ...] = attrs.field(converter=_tuple)
    winners: tuple[int, ...] = attrs.field(converter=_tuple)
    termination: Termination
    fault: FaultInfo | None
    started_at: float
    """Wall-clock (Unix) time when the game began."""
    ended_at: float
    thinking: tuple[float, ...] = attrs.field(converter=_tuple)
    """Seconds each seat spent choosing its moves."""
    version: int = RECORD_VERSION
    detail: str = ""
    """How the game ended in words (`Outcome.detail`: ``checkmate``, ``threefold repetition``,
    ...; for an abort, why the host stopped it: ``undo``, ``end of input``); empty when the
    termination says it all. A seat's fault has its details in ``fault``."""

    @property
    def duration(self) -> float:
        return max(0.0, self.ended_at - self.started_at)

    def result_text(self) -> str:
        """``1-0``, ``0-1``, ``1/2-1/2`` for two seats; otherwise the winners' names."""
        if len(self.players) == 2:
            if len(self.winners) == 1:
                return "1-0" if self.winners[0] == 0 else "0-1"
            return "1/2-1/2" if self.winners else "*"
        if not self.winners:
            return "*"
        return "winners: " + ", ".join(self.players[seat].name for seat in self.winners)


@attrs.frozen
class GameStarted:
    is_move: ClassVar[bool] = False
    """Whether the event is a `MoveMade` (a bus hands those only to who takes moves)."""

    game_id: str
    game: str
    settings: dict[str, JSON] = attrs.field(converter=_settings)
    players: tuple[PlayerInfo, ...] = attrs.field(converter=_tuple)
    time_controls: tuple[str, ...] = attrs.field(converter=_tuple)
    state: JSON
    to_move: int | None
    at: float


@attrs.frozen
class MoveMade:
    is_move: ClassVar[bool] = True

    game_id: str
    ply: int
    """1 for the first move of the game."""
    seat: int
    move: str
    state: JSON
    to_move: int | None
    elapsed: float
    clocks: tuple[float | None, ...] = attrs.field(converter=_tuple)
    """Each seat's time left after the move (None: no limit)."""
    at: float


@attrs.frozen
class GameEnded:
    is_move: ClassVar[bool] = False

    game_id: str
    record: GameRecord
    at: float


Event: TypeAlias = GameStarted | MoveMade | GameEnded

_KINDS: dict[str, type[Event]] = {
    "started": GameStarted,
    "moved": MoveMade,
    "ended": GameEnded,
}
_NAMES = {cls: name for name, cls in _KINDS.items()}


def _serialise(_instance: object, _field: object, value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


# What `attrs.asdict` passes through untouched (its ``_ATOMIC_TYPES``).
_ATOMIC = frozenset(
    {type(None), bool, int, float, str, complex, bytes, type(...), type, range, property}
)
_COLLECTIONS = (tuple, list, set, frozenset)


def _plain_field(value: Any) -> Any:
    """An attribute's value as ``attrs.asdict(..., value_serializer=_serialise)`` makes it
    (the serializer first, then the recursion; a collection keeps its type)."""
    value = _serialise(None, None, value)
    kind = type(value)
    if kind in _ATOMIC:
        return value
    if issubclass(kind, _COLLECTIONS) and getattr(kind, "__attrs_attrs__", None) is None:
        items = [_plain(item) for item in value]
        try:
            return kind(items)
        except TypeError:  # a named tuple, as asdict makes it
            if not issubclass(kind, tuple):
                raise
            return kind(*items)
    return _plain_compound(value, kind)


def _plain(value: Any) -> Any:
    """An element of a collection or a dict's key or value as ``attrs.asdict`` makes it;
    the common JSON types first, tested by identity (this runs for every value of every
    state view of a record)."""
    kind = type(value)
    if kind is str or kind is int or value is None or kind is bool:
        return value
    if kind is float:
        return value if math.isfinite(value) else None
    if kind is list:
        return [_plain(item) for item in value]
    if kind is tuple:
        return tuple([_plain(item) for item in value])
    if kind in _ATOMIC:
        return _serialise(None, None, value)
    return _plain_compound(value, kind)


def _plain_compound(value: Any, kind: type) -> Any:
    """An attrs instance, a collection (its own type kept), a dict, or anything else (the
    serializer's) as ``attrs.asdict`` makes it."""
    fields = getattr(kind, "__attrs_attrs__", None)
    if fields is not None:
        return {field.name: _plain_field(getattr(value, field.name)) for field in fields}
    if issubclass(kind, _COLLECTIONS):
        return kind([_plain(item) for item in value])
    if issubclass(kind, dict):
        return {_plain(key): _plain(item) for key, item in value.items()}
    return _serialise(None, None, value)


def to_json(value: Event | GameRecord) -> dict[str, JSON]:
    """A JSON-ready dict; events carry their kind under ``"event"``.

    The same dict as ``attrs.asdict(value, value_serializer=_serialise)`` (collections of
    their own types, enums as their values, a float that is not finite as None), made by a
    recursion of its own: asdict's generic one was most of what a loaded server's records
    writer spent on a game (every move's state view walked value by value), holding the GIL
    (docs/performance.md, "CPU per move")."""
    data: dict[str, JSON] = _plain_compound(value, type(value))
    name = _NAMES.get(type(value))  # type: ignore[arg-type]
    if name is not None:
        data["event"] = name
    return data


def record_from_json(data: Mapping[str, JSON]) -> GameRecord:
    """The inverse of `to_json` for a record (records and Ray results travel as JSON)."""
    fault = data.get("fault")
    return GameRecord(
        game_id=data["game_id"],
        game=data["game"],
        settings=data.get("settings") or {},
        players=[PlayerInfo(**player) for player in data["players"]],
        time_controls=data.get("time_controls") or (),
        initial_state=data.get("initial_state"),
        moves=[RecordedMove(**move) for move in data["moves"]],
        final_state=data.get("final_state"),
        scores=data["scores"],
        winners=data["winners"],
        termination=Termination(data["termination"]),
        fault=None
        if fault is None
        else FaultInfo(
            fault["seat"], Termination(fault["termination"]), fault["detail"], fault["move"]
        ),
        started_at=data["started_at"],
        ended_at=data["ended_at"],
        thinking=data.get("thinking") or (),
        version=data.get("version", RECORD_VERSION),
        detail=data.get("detail") or "",
    )


def event_from_json(data: Mapping[str, JSON]) -> Event:
    kind = data["event"]
    if kind == "ended":
        return GameEnded(data["game_id"], record_from_json(data["record"]), data["at"])
    fields = {key: value for key, value in data.items() if key != "event"}
    if kind == "started":
        fields["players"] = [PlayerInfo(**player) for player in fields["players"]]
        return GameStarted(**fields)
    if kind == "moved":
        return MoveMade(**fields)
    raise ValueError(f"unknown event kind {kind!r}")
