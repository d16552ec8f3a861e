"""An operator's round-robin among the bots present (``hub serve``; docs/running.md).

The operator of ``hub serve`` (with ``--admin-token``) starts a round-robin of one game:
``POST /GAME/admin/round-robin`` with the token (`ArenaOperator.start`). The TCP bots waiting
in that game's queue for "the next to arrive" at that moment are its players (with
``players``: those and the next to say hello for ``any``, until that many have entered:
two such bots are paired at once, so they seldom wait together); they leave the queue and
play its games: every pair ``games`` times, the seats rotated from game to game, in the
circle method's order (hub.tournament: `Field` of a ``round-robin`` `Plan`; nothing here
decides pairings beyond when a game can start).

A bot plays one game at a time on its connection, as always: after each game it says
hello again (``opponent`` ``any``) and its next round-robin game starts once its opponent
is back too (`Rota`: the pure part, which games may start now). Its hello with another
opponent is served as usual. A bot that leaves (its connection closes, or it leaves the
queue) forfeits its remaining games: they are counted as lost by disconnection, and not
played. A bot whose games are all played waits in the ordinary queue again.

Every game is played by the game's server (`GameServer.play_arranged`: the one match loop,
its clock) under the game id ``MATCH-INDEX``, recorded like any other and then given its
match id and index (`RecordStore.add`), as ``hub match`` records. The standings are
hub.tournament's (`Tally`, `Crosstable`, `MatchReport`, ``report_json``) and the page is
``hub match --web``'s (hub.web.standings) under the game's prefix: ``/GAME/match`` and
``/GAME/api/match``, linked from the lobby.
"""

from __future__ import annotations

import hmac
import logging
import random
import time
from collections.abc import Awaitable, Callable, Collection
from typing import TYPE_CHECKING, Any

import attrs
import trio

from hub.core.io import lobby as pairing
from hub.core.model.events import GameRecord
from hub.core.model.values import JSON
from hub.core.play.seats import LineSeat
from hub.core.play.vocabulary import Seat
from hub.tournament.formats import ROUND_ROBIN, Plan
from hub.tournament.runner import Aborted, Finished, MatchReport
from hub.tournament.schedule import Field, Scheduled, display_names, new_match_id
from hub.tournament.standings import Crosstable
from hub.tournament.tally import GameOutcome, Tally

if TYPE_CHECKING:
    from hub.declared.serve import GameServer
    from hub.records.database import Location
    from hub.records.store import StoredGame

MAX_GAMES_PER_PAIR = 100
"""The most games one pair may be asked to play (a bound on a request)."""
MAX_PLAYERS = 64
"""The most bots one round-robin takes (the first to arrive)."""
ROUND_ROBIN_SETTING = "round_robin"
"""The record setting of a round-robin's game: its players (in the schedule's order), its
games per pair and its seed, from which a server started again rebuilds the last
round-robin's standings (`last_round_robin`)."""
LOOKED_BACK = 1000
"""How many of a game's newest records a server started again looks through for the last
round-robin."""
LEFT = "disconnect"
"""The fault a forfeited game counts (`hub.tournament.tally.FAULT_KINDS`: a crash)."""


class ArenaRefused(ValueError):
    """A round-robin cannot start (the words say why)."""


@attrs.define
class Rota:
    """Which of a round-robin's games may start now (pure): a game starts once each of its
    players is present (back, waiting for its next game) and in no other game; the games
    are taken in the schedule's order. A player who left forfeits its games not started."""

    pending: list[Scheduled]
    busy: set[int] = attrs.Factory(set)
    gone: set[int] = attrs.Factory(set)

    def ready(self, present: Collection[int]) -> list[Scheduled]:
        """The games that start now (in order), their players marked busy."""
        started = []
        for game in list(self.pending):
            players = set(game.seating)
            if players <= set(present) and not players & self.busy and not players & self.gone:
                self.busy |= players
                self.pending.remove(game)
                started.append(game)
        return started

    def leave(self, player: int) -> None:
        self.gone.add(player)

    def forfeits(self) -> list[Scheduled]:
        """The games not started that have a player who left (taken out of `pending`)."""
        lost = [game for game in self.pending if set(game.seating) & self.gone]
        for game in lost:
            self.pending.remove(game)
        return lost

    def done(self, game: Scheduled) -> None:
        """``game`` is over: its players are free."""
        self.busy -= set(game.seating)

    def needs(self, player: int) -> bool:
        """Whether ``player`` has a game still to play (and has not left)."""
        return player not in self.gone and any(player in game.seating for game in self.pending)

    @property
    def over(self) -> bool:
        return not self.pending and not self.busy


def forfeit_outcome(game: Scheduled, gone: Collection[int]) -> GameOutcome:
    """A game not played because a player left: the others win it, the first who left is at
    fault (a disconnection); nobody wins if all left (no result)."""
    seating = game.seating
    here = tuple(seat for seat, player in enumerate(seating) if player not in gone)
    round_ = game.index // len(seating)
    if not here:
        return GameOutcome(seating, aborted=True, round=round_)
    fault = next(seat for seat, player in enumerate(seating) if player in gone)
    return GameOutcome(seating, here, round=round_, fault_seat=fault, fault=LEFT)


MatchFiler = Callable[[GameRecord, str, int], Awaitable[None]]
"""Gives a recorded game its match id and index."""


@attrs.define(eq=False)
class Arena:
    """A round-robin on ``server``, ``games`` per pair: first it gathers its bots (each
    known by its connection's line stream) until ``wanted`` have entered, then plays
    (`begin`: the `Field`, the `Rota`, the standings in `report`)."""

    server: GameServer
    games: int
    wanted: int
    record: MatchFiler | None = None
    connections: list[object] = attrs.Factory(list)
    """Each player's connection (its line stream), by player index."""
    names: list[str] = attrs.Factory(list)
    present: dict[int, pairing.Waiting[Seat[Any, Any]]] = attrs.Factory(dict)
    """The players waiting for their next game, by index."""
    field: Field | None = None
    report: MatchReport | None = None
    rota: Rota | None = None
    finished: trio.Event = attrs.Factory(trio.Event)
    match_id: str = attrs.Factory(new_match_id)

    @property
    def running(self) -> bool:
        """Gathering or playing."""
        return not self.finished.is_set()

    @property
    def gathering(self) -> bool:
        return self.rota is None and self.running

    def _player(self, key: object) -> int | None:
        for number, known in enumerate(self.connections):
            if known is key:
                return number
        return None

    def enter(self, key: object, entry: pairing.Waiting[Seat[Any, Any]]) -> None:
        """A bot enters (while gathering); the round-robin begins once ``wanted`` have."""
        number = len(self.connections)
        self.connections.append(key)
        self.names.append(entry.item.player.name)
        self.present[number] = entry
        if len(self.connections) >= self.wanted:
            self.begin()

    def begin(self) -> None:
        """Stop gathering: the schedule of the bots entered, its games that can start
        started. `ArenaRefused` with fewer than two."""
        if len(self.connections) < 2:
            raise ArenaRefused(f"{len(self.connections)} bot(s) entered: a round-robin needs two")
        names = display_names(self.names)
        game = self.server.game
        self.field = Field(
            Plan(ROUND_ROBIN, len(names)),
            self.match_id,
            game.name,
            names,
            dict(game.settings),
            random.randrange(2**31),
            per_table=self.games,
        )
        schedule = self.field.schedule({})
        self.report = MatchReport(
            schedule, Tally(names), backend="hub serve", planned=len(schedule),
            crosstable=Crosstable(names),
        )  # fmt: skip
        self.rota = Rota(list(schedule.games))
        self._go()

    def expects(self, key: object) -> bool:
        """Whether the bot of connection ``key`` has games left to play (while gathering:
        every bot, each may enter)."""
        if self.gathering:
            return True
        number = self._player(key)
        return number is not None and self.rota is not None and self.rota.needs(number)

    def arrive(self, key: object, entry: pairing.Waiting[Seat[Any, Any]]) -> bool:
        """A bot said hello for the next to arrive: True if the round-robin seats it (it
        enters one gathering, or is a player with games left), False to queue it as usual."""
        if not self.running:
            return False
        if self.gathering:
            if self._player(key) is None and len(self.connections) < MAX_PLAYERS:
                self.enter(key, entry)
                return True
            return False
        number = self._player(key)
        if number is None or self.rota is None or not self.rota.needs(number):
            return False
        self.present[number] = entry
        self._go()
        return True

    def away(self, key: object) -> None:
        """The bot of connection ``key`` left (hung up, or left the queue): while gathering
        it is no longer entered; later it forfeits the games it has not started."""
        number = self._player(key)
        if number is None:
            return
        if self.rota is None:
            del self.connections[number], self.names[number]
            self.present = {
                n - (n > number): entry for n, entry in self.present.items() if n != number
            }
            return
        if number in self.rota.gone:
            return
        self.rota.leave(number)
        self.present.pop(number, None)
        self._go()

    def close(self) -> None:
        """Stop (the server is closing): the bots waiting for a game go back to the queue,
        no game starts; the games being played are counted as they end."""
        for number in list(self.present):
            self.server.requeue(self.present.pop(number))
        if self.report is not None:
            self.report.stopped = "interrupted"
            self.report.finished_at = time.monotonic()
        self.finished.set()

    def _go(self) -> None:
        """Count the forfeits, start every game that can start, send the players without
        games back to the queue, and end the round-robin when every game is over."""
        rota, report = self.rota, self.report
        assert rota is not None and report is not None
        if not self.running:  # (closed)
            for number in list(self.present):
                self.server.requeue(self.present.pop(number))
            return
        for game in rota.forfeits():
            self._count(forfeit_outcome(game, rota.gone), game, "a player left")
        for game in rota.ready(self.present):
            entries = [self.present.pop(player) for player in game.seating]
            table = self.server.queue.seat(entries)
            assert self.server.nursery is not None
            self.server.nursery.start_soon(self._play, game, table)
        for number in [n for n in self.present if not rota.needs(n)]:
            self.server.requeue(self.present.pop(number))
        if rota.over and not self.finished.is_set():
            report.finished_at = time.monotonic()
            self.finished.set()

    async def _play(self, game: Scheduled, table: pairing.Seating[Seat[Any, Any]]) -> None:
        rota, report = self.rota, self.report
        assert rota is not None and report is not None
        record: GameRecord | None = None
        report.running += 1
        try:
            async with table.playing() as seats:
                record = await self.server.play_arranged(
                    list(seats),
                    game.spec.game_id,
                    game.spec.chance_seed,
                    {ROUND_ROBIN_SETTING: self.setting()},
                )
            finished = Finished(game, record)
            if finished.aborted or record is None:
                self._count(finished.outcome(), game, finished.reason() or "not played")
            else:
                self._count(finished.outcome(), game, "")
                if self.record is not None:  # (before the round-robin can be over)
                    await self.record(record, self.match_id, game.index)
        finally:
            report.running -= 1
            rota.done(game)
        self._go()

    def setting(self) -> dict[str, JSON]:
        """What its games' records keep of it (`ROUND_ROBIN_SETTING`)."""
        assert self.field is not None
        return {"players": list(self.field.players), "games": self.games, "seed": self.field.seed}

    @classmethod
    def recorded(
        cls, server: GameServer, match_id: str, setting: JSON, games: Collection[StoredGame]
    ) -> Arena:
        """The round-robin ``match_id`` as its records (``games``, each with
        ``setting``) tell it, over: its standings from its recorded games (those not
        recorded, forfeited or cut short, count for nothing); `TypeError` if ``setting`` is
        not one (`setting`)."""
        given = setting if isinstance(setting, dict) else {}
        names, per_pair, seed = given.get("players"), given.get("games"), given.get("seed")
        if not (isinstance(names, list) and isinstance(per_pair, int) and isinstance(seed, int)):
            raise TypeError("not a round-robin's setting")
        players = tuple(str(name) for name in names)
        arena = cls(server, per_pair, len(players), match_id=match_id)
        arena.names = list(players)
        game = server.game
        arena.field = Field(
            Plan(ROUND_ROBIN, len(players)), match_id, game.name, players,
            dict(game.settings), seed, per_table=per_pair,
        )  # fmt: skip
        schedule = arena.field.schedule({})
        arena.report = MatchReport(
            schedule, Tally(players), backend="hub serve", planned=len(schedule),
            crosstable=Crosstable(players),
        )  # fmt: skip
        scheduled = {each.index: each for each in schedule.games}
        for stored in sorted(games, key=lambda each: each.index or 0):
            planned = scheduled.get(stored.index) if stored.index is not None else None
            if planned is not None:
                finished = Finished(planned, stored.record)
                arena._count(finished.outcome(), planned, finished.reason())
        if arena.report.done < len(schedule):
            arena.report.stopped = "interrupted"
        arena.report.finished_at = arena.report.started
        arena.finished.set()
        return arena

    def _count(self, outcome: GameOutcome, game: Scheduled, why: str) -> None:
        """One game's result into the standings (hub.tournament's bookkeeping)."""
        report = self.report
        assert report is not None
        report.done += 1
        report.tally.add(outcome)
        if outcome.aborted:
            report.aborted.append(Aborted(game.index, why))
            return
        report.points[game.index] = outcome.points()
        if report.crosstable is not None:
            report.crosstable.add(outcome, game.spec.game_id)


def _line_key(seat: Seat[Any, Any]) -> object:
    """What knows a TCP bot from game to game: its connection's line stream."""
    assert isinstance(seat, LineSeat)
    return seat.lines


def bots_waiting(server: GameServer) -> list[pairing.Waiting[Seat[Any, Any]]]:
    """The TCP bots waiting in ``server``'s queue for the next to arrive, in order of
    arrival (people in browsers are not taken)."""
    return [entry for entry in server.queue.waiting if isinstance(entry.item, LineSeat)]


async def record_in(path: Location, record: GameRecord, match_id: str, index: int) -> None:
    """Give ``record`` its match id and index in the store at ``path`` (in a thread; the
    store's ``add`` fills them in if the game is there already, else adds it)."""

    def add() -> None:
        from hub.records.store import RecordStore

        with RecordStore.open(path) as store:
            store.add(record, match_id=match_id, index=index)

    try:
        await trio.to_thread.run_sync(add)
    except Exception as exc:  # (the game is recorded all the same, without its match)
        logging.getLogger("hub.arena").warning("cannot record %s's match: %s", match_id, exc)


@attrs.define(eq=False)
class ArenaOperator:
    """What the operator of a game's server may do over the web (``/GAME/admin/...``, with
    the token of ``--admin-token``), and the round-robin's standings the game's
    ``/GAME/match`` page shows (`hub.web.app.Standings`)."""

    server: GameServer
    token: str
    records: Location | None = None
    arena: Arena | None = None
    """The round-robin running, or the last one."""

    async def restore(self) -> None:
        """Show the last round-robin of the records (a server started again), unless one
        has started meanwhile; a records database that fails costs the page only."""
        path = self.records
        if path is None:
            return
        name = self.server.game.name
        try:
            found = await trio.to_thread.run_sync(last_round_robin, path, name)
            if found is not None and self.arena is None:
                self.arena = Arena.recorded(self.server, *found)
        except Exception as exc:
            logging.getLogger("hub.arena").warning("cannot read the last round-robin: %s", exc)

    def allowed(self, token: str) -> bool:
        """Whether ``token`` is the operator's (compared in constant time)."""
        return bool(self.token) and hmac.compare_digest(token.encode(), self.token.encode())

    def start(self, games: int, players: int | None = None) -> dict[str, Any]:
        """Start a round-robin of ``games`` per pair among the bots waiting now, or, with
        ``players``, open one that the bots waiting now and the next to say hello for the
        next to arrive enter until ``players`` have (then it begins); what it is (its match
        id, players so far, games); `ArenaRefused` if it cannot start."""
        server = self.server
        if not 1 <= games <= MAX_GAMES_PER_PAIR:
            raise ArenaRefused(f"games per pair: from 1 to {MAX_GAMES_PER_PAIR}")
        if players is not None and not 2 <= players <= MAX_PLAYERS:
            raise ArenaRefused(f"players: from 2 to {MAX_PLAYERS}")
        if server.arena is not None and server.arena.running:
            raise ArenaRefused("a round-robin is being played already")
        if server.closing:
            raise ArenaRefused("the server is shutting down")
        if server.game.players[0] != 2:
            raise ArenaRefused(f"{server.game.name} is not a two-player game")
        entries = bots_waiting(server)[: players or MAX_PLAYERS]
        if players is None and len(entries) < 2:
            raise ArenaRefused(
                f"{len(entries)} bot{'s' if len(entries) != 1 else ''} waiting: a round-robin "
                'needs two or more (or give "players": N to wait for N)'
            )
        path = self.records
        recorder = None
        if path is not None:

            async def recorder(record: GameRecord, match_id: str, index: int) -> None:
                await record_in(path, record, match_id, index)

        arena = Arena(server, games, players or len(entries), recorder)
        server.arena = self.arena = arena
        for entry in entries:
            server.queue.take(entry)
            arena.enter(_line_key(entry.item), entry)
        return self.state()

    def begin(self) -> dict[str, Any]:
        """Begin the round-robin that is gathering bots with those entered so far."""
        arena = self.arena
        if arena is None or not arena.gathering:
            raise ArenaRefused("no round-robin is waiting for bots")
        arena.begin()
        return self.state()

    def state(self) -> dict[str, Any]:
        """The round-robin's match id, players, games and whether it gathers or plays."""
        arena = self.arena
        if arena is None:
            return {}
        report = arena.report
        return {
            "match_id": arena.match_id,
            "players": list(arena.names if arena.field is None else arena.field.players),
            "games": None if report is None else len(report.schedule),
            "state": "gathering" if arena.gathering else "playing" if arena.running else "over",
            "page": "match",
        }

    # -- the standings page (hub.web.app.Standings) -------------------------------------------

    @property
    def live(self) -> bool:
        """Whether the lobby links to the standings (a round-robin was started)."""
        return self.arena is not None

    @property
    def title(self) -> str:
        arena = self.arena
        if arena is not None and arena.running:
            return "A round-robin of the bots is being played: standings"
        return "The last round-robin of the bots: standings"

    def text(self) -> str:
        from hub.tournament.progress import format_table

        arena = self.arena
        if arena is None:
            return ""
        if arena.report is None:
            return self._gathering(arena) + "\n"
        return format_table(arena.report)

    @staticmethod
    def _gathering(arena: Arena) -> str:
        entered = ", ".join(arena.names) or "none yet"
        return (
            f"round-robin {arena.match_id}: {arena.server.game.name}, waiting for bots "
            f"({len(arena.names)} of {arena.wanted}: {entered})"
        )

    def json(self) -> dict[str, Any]:
        from hub.tournament.progress import history_json, notes, report_json, summary_line

        arena = self.arena
        if arena is None:
            return {}
        report = arena.report
        if report is None:
            return {"summary": self._gathering(arena), **self.state()}
        data = report_json(report)
        data.pop("seed", None)
        return {
            **data,
            **history_json(report),
            "summary": summary_line(report, running=arena.running),
            "notes": notes(report),
            "state": self.state()["state"],
        }


def operator_for(server: GameServer, token: str, records: Location | None) -> ArenaOperator | None:
    """``server``'s `ArenaOperator` with ``token`` (None without one: nobody may start
    anything); with ``records``, it shows the last round-robin recorded there until one
    starts (read in ``server``'s nursery: `ArenaOperator.restore`)."""
    if not token:
        return None
    operator = ArenaOperator(server, token, records)
    if records is not None and server.nursery is not None:
        server.nursery.start_soon(operator.restore)
    return operator


def last_round_robin(path: Location, game: str) -> tuple[str, JSON, list[StoredGame]] | None:
    """The last round-robin of ``game`` among its `LOOKED_BACK` newest records at ``path``:
    its match id, its setting (`ROUND_ROBIN_SETTING`) and its recorded games; None if none."""
    from hub.records.store import RecordStore

    with RecordStore.open(path) as store:
        seen: set[str] = set()
        for summary in store.games(game=game, limit=LOOKED_BACK):
            match_id = summary.match_id
            if match_id is None or match_id in seen:
                continue
            seen.add(match_id)
            record = store.get(summary.game_id)
            if record is not None and ROUND_ROBIN_SETTING in record.settings:
                games = list(store.records(match_id=match_id))
                return match_id, record.settings[ROUND_ROBIN_SETTING], games
    return None
