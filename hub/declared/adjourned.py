"""Adjourned games played on: who may resume what, and the game rebuilt from its record.

``hub serve``'s shutdown (hub.declared.site) ends the games still running after its drain
as aborted with the detail `ADJOURNED`, and records them with every move and every seat's
identity. When a hub runs again on the same database, the players resume such a game:

* a seat whose player had a **registered name** (``bot:NAME`` or ``person:NAME``,
  hub.records.identities) is taken again only by that identity, proven by its token as at
  every hello (a JSON bot's hello carries ``"resume": GAME_ID``: docs/bots.md);
* a **built-in** player (``ai:N``, ``random``) is rebuilt from its spec and needs no one;
* a **guest** cannot prove who it is, so a game with a guest seat cannot be resumed: its
  adjourned record stays as it is, with every move (docs/decisions.md);
* a game with **hidden information** (a deal: `Game.hidden`) cannot be rebuilt from its
  public record without giving the deal away, so it is not resumed either.

The pure part (`claim`, `problem`, `rebuild`) decides and rebuilds; `Resumptions` gathers
the seats of the games being resumed in one process (the game starts when every
registered seat has been claimed) and is bounded by the connections that wait in it.

The resumed game keeps its id, its settings and its clocks as they stood at the
adjournment (each seat's time left, replayed from the recorded thinking times; the turn
the adjournment cut short is not charged); its record carries ``adjourned_at`` (the plies
made before each adjournment) and **replaces** the adjourned record in the store
(`hub.records.store.RecordStore.add`): one game, every move, nothing lost.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

import attrs
import trio

from hub.core.model.clock import SeatClock, TimeControl
from hub.core.model.events import GameRecord
from hub.core.model.referee import Termination
from hub.core.model.values import JSON, PlayerInfo
from hub.core.play.chance import CHANCE
from hub.core.play.game import BadMove, Game
from hub.core.play.record import NO_VIEW, History
from hub.core.play.vocabulary import Seat
from hub.declared.seats import SeatSpec, SeatSpecError, parse_seat
from hub.records.identities import KINDS, RESERVED
from hub.records.resuming import HoldFailed
from hub.records.store import PLAYED_ON, GameSummary

ADJOURNED = "adjourned: the server shut down"
"""The detail of a game the drain ended (its record is kept, and it may be resumed)."""
ADJOURNED_AT = PLAYED_ON
"""The record setting of a resumed game: the plies made before each adjournment."""
LISTED = 20
"""The most adjourned games the lobby page lists for one person."""
BUILT_KINDS = ("ai",)
"""The kinds of player rebuilt from their spec (the built-in levels and random movers)."""


class NotResumable(ValueError):
    """A game that cannot be resumed, or not by this player; the message says why."""


def registered(player: PlayerInfo) -> bool:
    """Whether ``player`` played under a registered name (``bot:NAME``, ``person:NAME``;
    the names hub gives to guests, ``person:browser``, are not)."""
    kind, colon, name = player.identity.partition(":")
    return bool(colon) and kind in KINDS and name.lower() not in RESERVED
    # (a guest bot's identity is remote:NAME, a built-in's GAME/ai:N)


def built_in(player: PlayerInfo) -> bool:
    """Whether ``player`` is a built-in player, rebuilt from its spec."""
    return player.kind in BUILT_KINDS


def problem(record: GameRecord, game: type[Game[Any, Any]]) -> str | None:
    """Why the game of ``record`` cannot be resumed at all (None: it can)."""
    words = f"game {record.game_id[:8]}"
    if record.game != game.name:
        return f"{words} is a game of {record.game}, not {game.name}"
    if record.termination is not Termination.ABORTED or record.detail != ADJOURNED:
        return f"{words} was not adjourned (it ended: {record.termination.value})"
    if game.hidden is not None:
        return f"{words} cannot be resumed: {game.name} has hidden information (a deal)"
    for player in record.players:
        if not registered(player) and not built_in(player):
            return f"{words} cannot be resumed: {player.name} played as a guest"
    return None


def claim(record: GameRecord, game: type[Game[Any, Any]], player: PlayerInfo) -> list[int]:
    """The seats of ``record``'s game that ``player`` may take again (its own: same
    registered identity), in order; `NotResumable` if none, or the game cannot be resumed."""
    why = problem(record, game)
    if why is not None:
        raise NotResumable(why)
    if not registered(player):
        raise NotResumable("only a registered name may resume a game (send its token)")
    seats = [
        number
        for number, seated in enumerate(record.players)
        if registered(seated) and seated.identity.lower() == player.identity.lower()
    ]
    if not seats:
        raise NotResumable(f"{player.name} has no seat in game {record.game_id[:8]}")
    return seats


@attrs.frozen
class Resumption:
    """An adjourned game rebuilt: the game on its recorded settings, its moves as a
    `History`, each seat's time control and time left, the built-in seats' specs."""

    record: GameRecord
    game: Game[Any, Any]
    history: History[Any, Any]
    controls: tuple[TimeControl, ...]
    remaining: tuple[float | None, ...]
    built: dict[int, SeatSpec]

    @property
    def wanted(self) -> frozenset[int]:
        """The seats a player must claim (all but the built-in ones)."""
        return frozenset(range(len(self.record.players))) - set(self.built)

    def adjourned_at(self) -> list[int]:
        """The record setting ``adjourned_at`` of the game played on: each adjournment's ply."""
        earlier = self.record.settings.get(ADJOURNED_AT)
        plies = (
            [int(ply) for ply in earlier if isinstance(ply, int)]
            if isinstance(earlier, list)
            else []
        )
        return [*plies, len(self.record.moves)]

    def set_clocks(self, clocks: Sequence[SeatClock]) -> None:
        """Put each seat's time left as it was at the adjournment (a match's clocks)."""
        for clock, left in zip(clocks, self.remaining, strict=True):
            clock.remaining = left


def rebuild(game_class: type[Game[Any, Any]], record: GameRecord) -> Resumption:
    """``record``'s game rebuilt to play on; `NotResumable` if its moves do not replay
    (a changed rule, a first position laid out at random)."""
    why = problem(record, game_class)
    if why is not None:
        raise NotResumable(why)
    names = {option.name for option in game_class.options}
    settings = {key: value for key, value in record.settings.items() if key in names}
    try:
        game = game_class(settings, len(record.players))
    except ValueError as exc:
        raise NotResumable(f"its settings are no longer valid: {exc}") from None
    first = game.start(random.Random(0))
    if game.view(first, None) != record.initial_state:
        raise NotResumable("its first position was laid out at random: it cannot be rebuilt")
    moves: list[tuple[int, Any]] = []
    recorded: list[tuple[int, str, float, Any, JSON]] = []
    state = first
    try:
        for played in record.moves:
            move = _move(game, state, played.seat, played.move)
            state = game.apply(state, move)
            moves.append((played.seat, move))
            recorded.append((played.seat, played.move, played.elapsed, state, NO_VIEW))
    except (BadMove, ValueError) as exc:
        raise NotResumable(f"its moves do not replay: {exc}") from None
    if game.outcome(state) is not None:
        raise NotResumable("its moves end the game: there is nothing to play on")
    try:
        controls = tuple(TimeControl.parse(text) for text in record.time_controls)
    except ValueError as exc:
        raise NotResumable(f"its time control: {exc}") from None
    if len(controls) != len(record.players):
        raise NotResumable(f"{len(controls)} time controls for {len(record.players)} seats")
    clocks = [SeatClock(control) for control in controls]
    for played in record.moves:
        if 0 <= played.seat < len(clocks) and clocks[played.seat].remaining is not None:
            clock = clocks[played.seat]
            assert clock.remaining is not None
            clock.remaining = max(0.0, clock.remaining - played.elapsed) + clock.control.increment
    built: dict[int, SeatSpec] = {}
    for number, player in enumerate(record.players):
        if built_in(player):
            try:
                built[number] = parse_seat(player.spec, game_class)
            except SeatSpecError as exc:
                raise NotResumable(f"its built-in player {player.spec!r}: {exc}") from None
    history = History(first, NO_VIEW, record.started_at, moves, recorded)
    remaining = tuple(clock.remaining for clock in clocks)
    return Resumption(record, game, history, controls, remaining, built)


def _move(game: Game[Any, Any], state: Any, seat: int, text: str) -> Any:
    """The move ``text`` by ``seat`` (chance's: one of its outcomes) in ``state``."""
    if seat != CHANCE:
        return game.parse_move(state, text)
    outcomes = game.chance.outcomes(state) if game.chance is not None else None
    for move, _ in outcomes or ():
        if game.move_text(state, move) == text:
            return move
    raise BadMove(f"{text!r} is not an outcome of chance here")


# -- gathering the seats (one process) --------------------------------------------------------


class Elsewhere(NotResumable):
    """The game is being resumed at another process of the hub (``address``: its TCP
    port, ``HOST:PORT``), where its players are sent."""

    def __init__(self, message: str, address: str) -> None:
        super().__init__(message)
        self.address = address


class Holds(Protocol):
    """Which process of a hub resumes a game (`hub.records.resuming.SharedHolds`)."""

    async def hold(self, game_id: str) -> str | None:
        """Hold ``game_id`` here: None if this process holds it, else the holder's TCP
        address; `hub.records.resuming.HoldFailed` if that cannot be told."""
        ...

    def release(self, game_id: str) -> None:
        """This process no longer holds ``game_id``."""
        ...


@attrs.define(eq=False)
class Gathering:
    """The players of one adjourned game who have come back (their seats, by number); the
    game starts (``started``) when every wanted seat is here, and ``done`` when it ends."""

    resumption: Resumption
    seats: dict[int, Seat[Any, Any]] = attrs.Factory(dict)
    started: trio.Event = attrs.Factory(trio.Event)
    done: trio.Event = attrs.Factory(trio.Event)
    called_off: str = ""
    """Why the game will not start after all (the server closing), "" otherwise."""
    reading: dict[int, trio.Event] = attrs.Factory(dict)
    """The seats whose waiting task reads their connection (a line or EOF: they left), each
    with the event set once it has stopped: the game reads them only then (`quiet`)."""

    async def quiet(self) -> None:
        """Once `started` is set: return when no waiting task reads a seat's connection any
        more (else the game's first read of it would meet the waiting task's)."""
        for stopped in list(self.reading.values()):
            await stopped.wait()

    @property
    def complete(self) -> bool:
        return self.resumption.wanted <= set(self.seats)


@attrs.define(eq=False)
class Resumptions:
    """The adjourned games being resumed in this process, by game id: looked up in the
    records (``lookup``), gathered, played by the last player to come back."""

    lookup: Callable[[str], Awaitable[GameRecord | None]]
    listing: Callable[[str, str, int], Awaitable[list[GameSummary]]] | None = None
    """The aborted games of a game with a seat of an identity (`hub.web.records.RecordsReader.
    adjourned`), for the lobby page's "your adjourned games"."""
    gatherings: dict[str, Gathering] = attrs.Factory(dict)
    holds: Holds | None = None
    """Where the processes on one database say which of them resumes a game
    (`hub.records.resuming.SharedHolds`); None: this process alone decides."""
    ended: set[str] = attrs.Factory(set)
    """The games played on here that ended kept (finished, or adjourned again as the
    server closes): never resumed again by this process, even before their record is
    written."""

    async def join(
        self, game: type[Game[Any, Any]], game_id: str, player: PlayerInfo
    ) -> tuple[Gathering, int]:
        """Take ``player``'s seat in the adjourned game ``game_id`` (its first seat not taken
        yet): the gathering and the seat; `NotResumable` if it may not."""
        if game_id in self.ended:
            raise NotResumable(f"game {game_id[:8]} has been played on already")
        gathering = self.gatherings.get(game_id)
        if gathering is None:
            record = await self.lookup(game_id)
            if record is None or record.game_id != game_id:
                raise NotResumable(f"no adjourned game {game_id[:40]!r} is recorded here")
            claim(record, game, player)
            if self.gatherings.get(game_id) is None:
                await self._hold(game_id)
            gathering = self.gatherings.get(game_id)  # (another came meanwhile)
            if gathering is None:
                try:
                    gathering = Gathering(rebuild(game, record))
                except NotResumable:
                    self._release(game_id)
                    raise
                self.gatherings[game_id] = gathering
        if gathering.started.is_set():
            raise NotResumable(f"game {game_id[:8]} is being played on already")
        free = [
            seat
            for seat in claim(gathering.resumption.record, game, player)
            if seat not in gathering.seats
        ]
        if not free:
            raise NotResumable(f"{player.name}'s seat in game {game_id[:8]} is taken already")
        return gathering, free[0]

    async def _hold(self, game_id: str) -> None:
        """Hold ``game_id`` for this process (`holds`); `Elsewhere` if another holds it."""
        if self.holds is None:
            return
        try:
            address = await self.holds.hold(game_id)
        except HoldFailed:
            raise NotResumable(
                f"the server cannot tell now whether game {game_id[:8]} is being resumed "
                "elsewhere: try again later"
            ) from None
        if address is not None:
            raise Elsewhere(
                f"game {game_id[:8]} is being resumed at another process of this hub (its "
                f"port for bots is {address}): its players play it there",
                address,
            )

    def _release(self, game_id: str) -> None:
        if self.holds is not None:
            self.holds.release(game_id)

    async def of_player(self, game: str, player: PlayerInfo) -> list[GameSummary]:
        """The adjourned games of ``game`` that ``player`` (registered) may resume, newest
        first, at most `LISTED`; none for a guest."""
        if self.listing is None or not registered(player):
            return []
        found = await self.listing(game, player.identity, LISTED)
        return [
            summary
            for summary in found
            if summary.detail == ADJOURNED and summary.game_id not in self.ended
        ]

    def leave(self, game_id: str, gathering: Gathering, seat: int) -> None:
        """A player who waited has gone before the game started: its seat is free again."""
        gathering.seats.pop(seat, None)
        if not gathering.seats and self.gatherings.get(game_id) is gathering:
            del self.gatherings[game_id]
            self._release(game_id)

    def finished(self, game_id: str, gathering: Gathering, *, kept: bool = False) -> None:
        """The game played on has ended (``kept``: recorded) or never started: forget it."""
        if kept:
            self.ended.add(game_id)
        if not gathering.started.is_set() and not gathering.called_off:
            gathering.called_off = "the game could not be played on"  # (its seats not made)
        if self.gatherings.get(game_id) is gathering:
            del self.gatherings[game_id]
            if not kept:  # (a game played on keeps its hold: its record is on its way)
                self._release(game_id)
        gathering.started.set()
        gathering.done.set()

    def call_off(self, why: str) -> None:
        """No game not started yet will start (the server closing): the waiting are told."""
        for game_id, gathering in list(self.gatherings.items()):
            if not gathering.started.is_set():
                gathering.called_off = why
                self.finished(game_id, gathering)
