"""``hub serve GAME`` for every declared game: a TCP lobby speaking the JSON bot protocol.

Each client is welcomed and answers with a hello (docs/bots.md). Its ``opponent`` decides
its game: ``any`` (the default) pairs it with the clients that arrive next, in order of
arrival (the first to arrive takes the first seat); ``ai:N`` or ``random`` starts a game at
once against a built-in player. After its game ends a client may say hello again to play
another, or leave. Games have the clocks of ``--tc``; the server's limits (connections, line
length, idle clients, output per client) are the core's `ServerLimits`; it binds to
127.0.0.1 unless told otherwise, prints its port on stderr, records every game and, with
``--web``, serves the web board.

`GameServer` decides where each hello goes; its parts each do one job and read alone: a
hello's checks and who plays (hub.declared.hellos), the waiting room that pairs players
(hub.declared.queues), the games being played (hub.declared.playing) and the returning
players of adjourned games (hub.declared.resuming).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import math
import random
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

import attrs
import trio

from hub.core.commands.running import run_program
from hub.core.commands.usage import Parser
from hub.core.io import lobby as pairing
from hub.core.io.limits import add_limit_options, fit_open_files, limits_from_args
from hub.core.io.lines import LineError
from hub.core.io.listen import ListenError, bound_port, open_listeners
from hub.core.io.output import Output
from hub.core.io.serve import Connection, serve_lines
from hub.core.io.serverlog import add_log_options, configure_logging, log_games, log_level_from_args
from hub.core.model.bus import EventBus
from hub.core.model.clock import TimeControl
from hub.core.model.events import GameRecord
from hub.core.model.values import JSON, PlayerInfo
from hub.core.play.game import Game, SettingsError
from hub.core.play.jsonbot import MAX_LINE, OPPONENTS_ANY, BadHello, Hello, dumps
from hub.core.play.match import Match
from hub.core.play.seats import LineSeat
from hub.core.play.vocabulary import Seat
from hub.declared import hellos
from hub.declared.adjourned import (
    Resumptions,
)
from hub.declared.browser import (
    ARRIVAL,
    GRACE,
    BrowserSeat,
    DeskFull,
    RematchOffer,
    SeatDesk,
    cannot_ask,
    come,
    rotated,
    who,
)
from hub.declared.hellos import CLOSING, NOT_RESUMED
from hub.declared.names import GUESTS, Refused, add_name_options
from hub.declared.options import (
    add_admin_option,
    add_game_options,
    add_time_control,
    read_command_line,
    settings_from,
    time_control,
)
from hub.declared.playing import Playing
from hub.declared.queues import WaitingRoom
from hub.declared.remote import NO_REMATCH, RemoteSeat, across, start_relays
from hub.declared.resuming import Returning
from hub.declared.seats import (
    SeatMaker,
    SeatSpec,
    ai_levels,
    handshake,
)
from hub.declared.sharing import (
    Choice,
    Post,
    Sharing,
    follow_elsewhere,
    open_sharing,
    start_live,
)
from hub.declared.terms import (
    Offer,
    Terms,
    TermsError,
    add_terms_options,
    offer_from,
    settings_of,
)
from hub.records.identities import NameBook
from hub.records.leaderboard import LeaderboardReader
from hub.records.options import add_record_options, record_path
from hub.web.limits import NEW_GAME_EVERY, NEW_GAMES_BURST, STREAMS_PER_CLIENT, ServerFull
from hub.web.options import add_web_option

if TYPE_CHECKING:
    from hub.records.database import Location
    from hub.web.app import Operator

log = logging.getLogger("hub.declared.serve")
DEFAULT_TC = "60+1"


def parser_for(game: type[Game[Any, Any]]) -> Parser:
    parser = Parser(
        f"hub serve {game.name}",
        usage=f"hub serve {game.name} [OPTIONS]",
        description=f"{game.summary}. Serve {game.name} over TCP to clients speaking the "
        "JSON bot protocol (docs/bots.md): each client's hello asks for a partner (the next "
        "client to arrive) or a built-in player (ai:N, random). The port it listens on is "
        "printed alone on the first line of stderr (with --web, the page's URL follows). "
        "With --web, people play "
        "from its lobby page too: a game with people in browsers starts its clocks once each "
        f"has opened their page (else it is called off after {ARRIVAL:g} s), a waiting page "
        "closed for --grace seconds leaves the queue (a player's, the game: a disconnect), "
        "and each client address may start "
        f"{NEW_GAMES_BURST} games at once, then one every {NEW_GAME_EVERY:g} s, and keep "
        f"{STREAMS_PER_CLIENT} pages open (429 beyond; 503 when the server is full).",
    )
    parser.add_argument(
        "--port", default="0", help="the port to listen on (default 0: any free port)"
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)",
    )
    add_game_options(parser, game)
    add_time_control(parser, DEFAULT_TC)
    add_terms_options(parser)
    add_limit_options(parser)
    add_log_options(parser)
    add_web_option(parser)
    add_grace_option(parser)
    add_record_options(parser)
    add_name_options(parser)
    add_admin_option(parser, "/")
    return parser


MAX_GRACE = 3600.0


def seconds(most: float, *, zero: bool) -> Callable[[str], float]:
    """An option's type: a number of seconds up to ``most``, and 0 only with ``zero``."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
        low_ok = value >= 0 if zero else value > 0
        if not low_ok or not value <= most:  # (NaN is neither)
            bounds = "from 0 to" if zero else "more than 0 and at most"
            raise argparse.ArgumentTypeError(f"{text!r}: {bounds} {most:g} seconds")
        return value

    return parse


def add_grace_option(parser: argparse.ArgumentParser) -> None:
    """``--grace SECONDS``: how long a person's page may be gone (`GameServer.grace`)."""
    parser.add_argument(
        "--grace",
        metavar="SECONDS",
        type=seconds(MAX_GRACE, zero=False),
        default=GRACE,
        help="with --web, how long a person's page may be gone (closed, reloading, a lost "
        "connection) before they lose a game under way (a disconnect) or leave the queue "
        f"they wait in (default {GRACE:g})",
    )


OperatorMaker = Callable[["GameServer", str, "Location | None"], "Operator | None"]
"""Makes a game server's `hub.web.app.Operator` (hub.tournament.arena's `operator_for`, given
by ``hub``'s command line: tournaments are a layer above): the server, the ``--admin-token``,
the records' location (None: no records)."""


def main(
    game_class: type[Game[Any, Any]],
    args: Sequence[str],
    operators: OperatorMaker | None = None,
) -> int:
    def build(options: argparse.Namespace) -> tuple[Any, ...]:
        game = game_class(settings_from(options, game_class))
        control = time_control(options.tc)
        return game, offer_from(game, control, options.tc_choices, options.offer), options

    parsed = read_command_line(parser_for(game_class), args, build)
    if isinstance(parsed, int):
        return parsed
    game, offer, options = parsed
    configure_logging(game.name, log_level_from_args(options))
    status: int = run_program(
        partial(serve, operators=operators), game, offer, options, cancel_on_signal=True
    )
    return status


WAITING = "Waiting for an opponent: the next player to arrive plays you."
"""What a person's page says while they wait for the next to arrive."""


class RoundRobin(Protocol):
    """An operator's round-robin among the bots present, as a `GameServer` sees it (made
    and played by hub.tournament.arena, the layer of tournaments): it seats its players,
    each known by its connection's line stream (``key``), when they say hello for the next
    to arrive."""

    @property
    def running(self) -> bool: ...

    def expects(self, key: object) -> bool:
        """Whether the bot of connection ``key`` has games left in it."""
        ...

    def arrive(self, key: object, entry: pairing.Waiting[Seat[Any, Any]]) -> bool:
        """The bot of ``key`` waits (``entry``) for the next to arrive: True if the
        round-robin seats it (its task waits as in the queue), False to queue it."""
        ...

    def away(self, key: object) -> None:
        """The bot of ``key`` left: it forfeits its games not started."""
        ...

    def close(self) -> None:
        """The server is closing: no more games start; the bots it holds go back to the
        queue (which `GameServer.close` then dismisses)."""
        ...


@attrs.define(eq=False)
class GameServer:
    """Where players are paired and games are played: TCP clients (`handle`, one task per
    connection) and people in a browser (`start`, from the lobby page; their games run in
    ``nursery``) wait in the same queue, core's `hub.core.io.lobby.Lobby` (tables of the game's
    number of players, in order of arrival).

    People are seated only while they are here: one whose page has gone (`GRACE`) or who
    asks to leave leaves the queue, and a TCP client that disconnects (or says anything)
    while it waits too; a game with people in browsers starts its clocks only once each has
    opened their page, and is called off if one has not within ``arrival`` seconds (None:
    nobody is waited for, as for seats played in memory).

    Who sits down is `identify`'s: a registered name with its token (``names``), or a
    guest where ``guests`` (hub.declared.names); a TCP client is checked at its first hello
    and again only if a later one names another name or token. "Next to arrive" prefers
    the waiting player of the nearest rating (``ratings``; the lobby's ``reach``)."""

    game: Game[Any, Any]
    control: TimeControl
    events: EventBus
    nursery: trio.Nursery | None = None
    desk: SeatDesk | None = None
    arrival: float | None = None
    grace: float = GRACE
    names: NameBook | None = None
    """The registered names (hub.records.identities), None without a database: then every
    player is a guest."""
    guests: bool = GUESTS
    """Whether players without a registered name play (as unrated guests)."""
    playing: Playing = attrs.Factory(Playing)
    """The games being played here (hub.declared.playing): counted, held while they run."""
    _again: dict[int, pairing.Waiting[Seat[Any, Any]]] = attrs.Factory(dict)
    """TCP clients (by their seats' ids) whose table was called off: their new entries
    (they wait again, at the front of the queue)."""
    sharing: Sharing | None = None
    """The waiting queue shared with the other processes on one PostgreSQL (None: this
    process's queue alone; hub.declared.sharing). Each choice (`Terms`) is shared as its
    own queue (`shared_choice`)."""
    offer: Offer | None = None
    """What people and bots may choose (hub.declared.terms): the time controls and the
    game's offered options; None: only ``control`` and the game's settings."""
    room: WaitingRoom = attrs.field(init=False)
    """The queue of each choice (`Terms`) and who is paired with whom
    (hub.declared.queues): the one place that decides pairings; its tables come back to
    `seat_table`."""

    resumptions: Resumptions | None = None
    """The adjourned games being resumed here (hub.declared.adjourned; None: no records,
    nothing to resume)."""

    arena: RoundRobin | None = None
    """The operator's round-robin among the bots present, the one running or the last
    (hub.tournament.arena): its players' hellos for the next to arrive go to it."""

    def __attrs_post_init__(self) -> None:
        if self.offer is None:
            self.offer = Offer((self.control,), (), dict(self.game.settings))
        self.room = WaitingRoom(self, self.game.players[0], self.offer)

    @property
    def queue(self) -> pairing.Lobby[Seat[Any, Any]]:
        """The "next to arrive" queue of the server's own terms (always there)."""
        return self.room.queue

    @property
    def queues(self) -> dict[Terms, pairing.Lobby[Seat[Any, Any]]]:
        """The "next to arrive" queue of each choice (`Terms`) somebody waits with."""
        return self.room.queues

    @property
    def ratings(self) -> dict[str, float]:
        """The players' ratings by identity (`refresh_ratings`): "next to arrive" pairs a
        newcomer with the waiting player of the nearest rating (unrated: 0, the list's
        mean)."""
        return self.room.ratings

    @ratings.setter
    def ratings(self, ratings: dict[str, float]) -> None:
        self.room.ratings = ratings

    @property
    def default(self) -> Terms:
        """The server's own terms: its ``--tc`` and settings."""
        assert self.offer is not None
        return self.offer.default

    def terms(self, tc: object = None, settings: object = None) -> Terms:
        """A request's `Terms` within the `offer`; `TermsError` (a `ValueError`) if not."""
        assert self.offer is not None
        return self.offer.terms(tc, settings)

    def game_of(self, terms: Terms) -> Game[Any, Any]:
        """The game played on ``terms`` (the server's own for its default terms)."""
        if terms == self.default:
            return self.game
        assert self.offer is not None
        try:
            return type(self.game)(settings_of(terms, self.offer))
        except SettingsError as exc:  # (chosen settings at odds with the server's)
            raise TermsError(str(exc)) from None

    @property
    def waiting(self) -> int:
        """How many wait for the next to arrive, whatever their choice."""
        return self.room.waiting

    def waiting_on(self, terms: Terms | None) -> int:
        """How many wait for the next to arrive on ``terms`` (None: the server's own)."""
        return self.room.waiting_on(terms)

    def shared_choice(self, terms: Terms) -> Choice:
        """``terms`` as the shared queue carries it (hub.declared.sharing.Choice)."""
        return self.room.shared_choice(terms)

    def queue_of(self, terms: Terms) -> pairing.Lobby[Seat[Any, Any]]:
        """The queue of ``terms`` (`WaitingRoom.queue_of`; `TermsError` if too many
        different choices wait)."""
        return self.room.queue_of(terms)

    async def identify(
        self, name: str, token: str | None, *, kind: str = "remote", spec: str = "tcp"
    ) -> PlayerInfo:
        """Who ``name`` with ``token`` plays as here (`hub.declared.hellos.identify`, among
        `names`); `Refused` if it may not, and if the names cannot be read now."""
        return await hellos.identify(
            self.names, name, token, guests=self.guests, kind=kind, spec=spec
        )

    async def register(self, name: str) -> str:
        """Register ``name`` for a person (`hub.declared.hellos.register`): its token;
        `Refused` if it is taken or not a name, or there are no names here."""
        return await hellos.register(self.names, name)

    async def refresh_ratings(self, book: LeaderboardReader) -> None:
        """Read this game's ratings (the leaderboard's) into `ratings`."""
        board = await book.board(self.game.name)
        self.ratings = {row.identity: row.rating for row in board.rows}

    async def handle(self, connection: Connection) -> None:
        lines = connection.lines
        welcome = True  # once a connection (docs/bots.md): later hellos follow an end
        while True:
            try:
                hello = await handshake(lines, self.game.name, welcome=welcome)
                welcome = False
                if hello.game and hello.game != self.game.name:
                    raise BadHello(f"this server plays {self.game.name}, not {hello.game}")
                await self.play_hello(connection, hello)
            except BadHello as exc:  # docs/bots.md: an error, and the connection closes
                self.hung_up(connection)
                await lines.send_line(dumps({"type": "error", "error": str(exc)}))
                return
            except LineError:
                self.hung_up(connection)
                return

    async def play_hello(self, connection: Connection, hello: Hello) -> None:
        """The game a TCP client's ``hello`` (read already) asks for, played to its end (or
        not played: its table called off, the server closing). `BadHello` if the hello asks
        for what is not offered, or the server is closing (`close`)."""
        if self.closing:
            raise BadHello(CLOSING)
        opponent = hellos.opponent_of(hello, type(self.game))
        try:
            terms = self.terms(hello.tc, hello.settings)
            self.game_of(terms)
        except TermsError as exc:
            raise BadHello(str(exc)) from None
        try:
            player = await self.identify(hello.name, hello.token)
        except Refused as exc:
            raise BadHello(str(exc)) from None
        connection.busy = lambda: True
        try:
            if hello.resume:
                returning = self._returning()
                if returning is None:
                    raise BadHello(NOT_RESUMED)
                await returning.tcp(connection.lines, hello, hello.resume, player)
            else:
                await self._one_game(connection, hello, player, opponent, terms)
        finally:
            connection.busy = lambda: False

    # -- closing (hub serve's drain: hub.declared.site) -------------------------------------

    def close(self) -> None:
        """Start no more games: hellos and the lobby page are refused (`CLOSING`), the
        players waiting in the queue leave it (a person's page says why), a table or a
        rematch not started yet is called off; the running games go on (`drained`)."""
        self.playing.closing = True
        if self.resumptions is not None:
            self.resumptions.call_off(CLOSING)
        if self.arena is not None and self.arena.running:
            self.arena.close()
        for entry in self.room.dismiss():
            if isinstance(entry.item, BrowserSeat):
                entry.item.call_off(f"{CLOSING}: no game was played.")

    @property
    def closing(self) -> bool:
        """Set by `close`: no new game starts (`Playing.closing`)."""
        return self.playing.closing

    @property
    def running(self) -> set[Match[Any, Any]]:
        """The games being played."""
        return self.playing.running

    @property
    def games(self) -> int:
        """How many games were started here."""
        return self.playing.games

    async def drained(self) -> None:
        """Return once no game is running (at once if none is)."""
        await self.playing.drained()

    def adjourn(self, detail: str) -> None:
        """End every running game now, as aborted with ``detail`` (the players are told,
        the record kept by whoever keeps such records)."""
        self.playing.adjourn(detail)

    @property
    def _grace(self) -> float:
        """How long a person's page may be gone mid-game (none is waited for without an
        ``arrival``: seats played in memory)."""
        return self.grace if self.arrival is not None else math.inf

    # -- adjourned games played on (hub.declared.adjourned) ------------------------------------

    def _returning(self) -> Returning | None:
        """The returning players of this server's adjourned games (hub.declared.resuming),
        None where nothing is resumed (no records)."""
        if self.resumptions is None:
            return None
        return Returning(
            type(self.game), self.resumptions, self.events, self.playing, self.arrival, self.grace
        )

    async def adjourned(self, player: PlayerInfo) -> list[dict[str, Any]]:
        """The lobby page's "your adjourned games": those of this game ``player`` may resume
        (``game_id``, ``players``, ``moves``, ``ended_at``); none for a guest."""
        returning = self._returning()
        return [] if returning is None else await returning.listed(player)

    async def resume(self, game_id: str, player: PlayerInfo) -> dict[str, Any]:
        """A person in a browser takes their seat in the adjourned game ``game_id`` again
        (the lobby page's "Resume"): their seat's page (``{"play": PATH}``), where they wait
        for the other players to come back while the page is open; `Refused` if they may
        not, `ServerFull` once closing."""
        assert self.nursery is not None and self.desk is not None
        if self.closing:
            raise ServerFull(CLOSING)
        returning = self._returning()
        if returning is None:
            raise Refused(NOT_RESUMED)
        return await returning.browser(game_id, player, self.desk, self.nursery)

    def _built(self, opponent: str) -> SeatSpec:
        """The built-in player ``opponent`` names (`hub.declared.hellos.built_in`)."""
        return hellos.built_in(opponent, type(self.game))

    async def _one_game(
        self,
        connection: Connection,
        hello: Hello,
        player: PlayerInfo,
        opponent: SeatSpec | None,
        terms: Terms,
    ) -> None:
        seat = self._seat(connection, player, self.game_of(terms))
        if opponent is not None:
            await self._against(seat, opponent, terms)
            return
        shared = self.sharing
        if shared is not None and not self._in_arena(connection):
            # (relayed elsewhere: Relayed ends the connection)
            await shared.relay_away(connection.lines, hello, self.shared_choice(terms))
        me = pairing.Waiting(seat)
        # (a round-robin takes the bots that ask for the server's own terms)
        arranged = (
            terms == self.default
            and self.arena is not None
            and self.arena.arrive(connection.lines, me)
        )
        table = None if arranged else self.room.join(me, terms)
        while True:  # again if its table is called off (a person did not come)
            if table is None:

                async def gone() -> None:
                    # Nothing may arrive before the game starts: a line or EOF: it left.
                    with contextlib.suppress(LineError):
                        await connection.lines.receive_line()

                post = Post(movable=not arranged)
                queue = self.queue_of(terms)
                watch = gone if arranged else self.room.watch(gone, post, terms)
                if not await queue.wait(me, watch):
                    self.hung_up(connection)  # (a round-robin's player forfeits the rest)
                    if post.to is None:
                        return  # it left
                    assert self.sharing is not None  # (called away by another process)
                    await self.sharing.relay_to(connection.lines, hello, post)
                    me = pairing.Waiting(seat)  # (that process is gone: wait here again)
                    table = queue.join(me)
                    continue
            else:
                await self._play_table(table, terms)
            again = self._again.pop(id(seat), None)
            if again is None:
                return
            me, table = again, None  # (queued at the front, or seated there already)

    # -- the operator's round-robin (hub.tournament.arena) --------------------------------------

    def _in_arena(self, connection: Connection) -> bool:
        arena = self.arena
        return arena is not None and arena.running and arena.expects(connection.lines)

    def hung_up(self, connection: Connection) -> None:
        """``connection``'s client left (it hung up, or left the queue): a round-robin's
        player forfeits its games not started."""
        if self.arena is not None and self.arena.running:
            self.arena.away(connection.lines)

    def requeue(self, entry: pairing.Waiting[Seat[Any, Any]]) -> None:
        """A round-robin's player with no game left, waiting (its task in `Lobby.wait`):
        into the ordinary queue."""
        self.seat_table(self.room.join(entry, self.default), self.default)

    async def play_arranged(
        self,
        seats: list[Seat[Any, Any]],
        game_id: str,
        seed: int | None,
        record_settings: dict[str, JSON] | None = None,
    ) -> GameRecord | None:
        """Play a game whose seats someone else chose (the round-robin), under ``game_id``,
        its start drawn from ``seed``, ``record_settings`` added to its record's settings:
        its record (None: not played, the server closing)."""
        if self.closing:
            return None
        match = Match(
            self.game,
            self.game.start(random.Random(seed)),
            seats,
            events=self.events,
            time_control=self.control,
            settings=self.game.settings,
            record_settings=record_settings,
            game_id=game_id,
        )
        return await self.playing.run(match)

    async def _play_table(self, table: pairing.Seating[Seat[Any, Any]], terms: Terms) -> None:
        async with table.playing() as seats:
            await self._play(list(seats), {}, terms, from_queue=True)

    async def _against(
        self, seat: Seat[Any, Any], spec: SeatSpec, terms: Terms | None = None
    ) -> None:
        await self._play_built([seat, None], {1: spec}, terms)

    async def _play_built(
        self,
        slots: list[Seat[Any, Any] | None],
        built: dict[int, SeatSpec],
        terms: Terms | None = None,
    ) -> None:
        """A game whose empty ``slots`` are built players (``built``, by seat number), on
        ``terms`` (default: the server's)."""
        terms = terms or self.default
        maker = SeatMaker(self.game_of(terms), random.randrange(2**31))
        numbers = sorted(built)
        async with maker.seats([built[n] for n in numbers]) as made:
            seats = list(slots)
            for number, seat in zip(numbers, made, strict=True):
                seats[number] = seat
            await self._play([seat for seat in seats if seat is not None], built, terms)

    def _offer_rematch(
        self, seats: list[Seat[Any, Any]], built: dict[int, SeatSpec], terms: Terms
    ) -> None:
        """Give the game's browser seats their rematch: the seats rotated (colours swapped),
        the same built players, the people in browsers asked; none with a TCP client."""
        browsers = [seat for seat in seats if isinstance(seat, BrowserSeat)]
        if not browsers:
            return
        if across(seats):  # (a person at another process: hub.declared.remote)
            RematchOffer(browsers, None, NO_REMATCH).offer_to()
            return
        if any(
            not isinstance(seat, BrowserSeat) and n not in built for n, seat in enumerate(seats)
        ):
            RematchOffer(browsers, None, cannot_ask("tcp")).offer_to()
            return

        def start() -> list[BrowserSeat]:
            assert self.nursery is not None and self.desk is not None
            game = self.game_of(terms)
            fresh = [self.desk.open(game, seat.player) for seat in browsers]
            new_of = {id(old): new for old, new in zip(browsers, fresh, strict=True)}
            order = rotated(range(len(seats)))
            slots: list[Seat[Any, Any] | None] = [
                new_of.get(id(seats[n])) if n not in built else None for n in order
            ]
            again = {k: built[n] for k, n in enumerate(order) if n in built}
            self.nursery.start_soon(self._play_built, slots, again, terms)
            return fresh

        RematchOffer(browsers, start).offer_to()

    def _seat(
        self, connection: Connection, player: PlayerInfo, game: Game[Any, Any]
    ) -> Seat[Any, Any]:
        from hub.core.play.jsonbot import JsonCodec

        return LineSeat(connection.lines, JsonCodec(game), player)

    def _call_off(
        self, seats: list[Seat[Any, Any]], absent: list[int], from_queue: bool, terms: Terms
    ) -> None:
        """The game of ``seats`` is not played: ``absent`` did not come. From the queue the
        others wait again at its front (their place, in their order); else their page says
        why."""
        for number, seat in enumerate(seats):
            if number in absent:
                if isinstance(seat, BrowserSeat):
                    seat.call_off("You did not come in time: no game was played.")
            elif from_queue and isinstance(seat, BrowserSeat):
                self._wait_in_queue(
                    seat, "Your opponent did not come: waiting for another.", terms, ahead=True
                )
            elif from_queue:  # a TCP client: its task waits with the new entry
                entry = pairing.Waiting(seat)
                self._again[id(seat)] = entry
                self.seat_table(self.room.join(entry, terms, ahead=True), terms)
            elif isinstance(seat, BrowserSeat):
                missing = who(self.game_of(terms), seats, absent)
                seat.call_off(f"The game was called off: {missing} did not come in time.")

    def seat_table(self, table: pairing.Seating[Seat[Any, Any]] | None, terms: Terms) -> None:
        """Play ``table`` (if a join made one) in the lobby's nursery, on ``terms``."""
        if table is not None:
            assert self.nursery is not None
            self.nursery.start_soon(self._play_table, table, terms)

    async def _play(
        self,
        seats: list[Seat[Any, Any]],
        built: dict[int, SeatSpec],
        terms: Terms | None = None,
        *,
        from_queue: bool = False,
    ) -> None:
        """Play ``seats`` on ``terms`` (default: the server's) once everyone has come."""
        terms = terms or self.default
        game = self.game_of(terms)
        absent = await come(game, seats, self.arrival, self.grace)
        if self.closing:  # (no new game once closing: each person's page says why)
            for seat in seats:
                if isinstance(seat, BrowserSeat):
                    seat.call_off(f"{CLOSING}: no game was played.")
            return
        if absent:
            self._call_off(seats, absent, from_queue, terms)
            return
        self._offer_rematch(seats, built, terms)
        match = Match(
            game,
            game.start(random.Random()),
            seats,
            events=self.events,
            time_control=terms.control,
            settings=game.settings,
        )
        await self.playing.attended(match, seats, self._grace)

    # -- people in a browser (the lobby page) ----------------------------------------------------

    def choices(self) -> list[tuple[str, str]]:
        """What the lobby page offers: (opponent, words)."""
        offered = [(f"ai:{n}", f"the computer, level {n}") for n in ai_levels(type(self.game))]
        offered.append(("random", "random moves"))
        offered.append(("person", "a friend (you get a link to share)"))
        offered.append(("any", "the next player to arrive (a browser or a program over TCP)"))
        return offered

    def limits(self) -> dict[str, Any]:
        """What the lobby page offers to choose (`Offer.json`)."""
        assert self.offer is not None
        return self.offer.json()

    def start(
        self,
        opponent: str,
        player: PlayerInfo | None = None,
        tc: object = None,
        settings: object = None,
    ) -> dict[str, Any]:
        """Seat a person in a browser for a game against ``opponent`` (an ``ai:N``, ``random``,
        ``person`` or ``friend``: a second browser seat whose link they share, ``any``: the
        queue of their choice) with the time control ``tc`` and the ``settings`` they chose
        (None: the server's; `terms`); the seat's page (and the link to share, a seat of the
        same game). Raises `SeatSpecError` for another opponent (the same words for every
        other text: nothing is looked up), `TermsError` for a choice outside the `offer`, and
        `DeskFull` when the desk has no room. ``player``: who the person is (`identify`;
        default: a guest, ``browser``)."""
        assert self.nursery is not None and self.desk is not None
        if self.closing:
            raise ServerFull(CLOSING)
        spec = hellos.asked_from_the_web(opponent, self.game)
        terms = self.terms(tc, settings)
        game = self.game_of(terms)
        if opponent == OPPONENTS_ANY:
            self.queue_of(terms)  # (refused before a seat is opened if too many wait)
        me = player or PlayerInfo("browser", "person", "web", "person:browser")
        mine = self.desk.open(game, me)
        reply: dict[str, Any] = {"play": f"/play/{mine.token}", "share": None}
        if opponent in ("person", "friend"):
            try:
                theirs = self.desk.open(
                    game, PlayerInfo("friend", "person", "web", "person:friend")
                )
            except DeskFull:
                mine.call_off("The server is full: no game was played.")
                raise
            theirs.nameable = partial(hellos.not_oneself, me)  # (the friend may bring their name)
            reply["share"] = f"/play/{theirs.token}"
            pair: list[Seat[Any, Any]] = [mine, theirs]
            self.nursery.start_soon(self._play, pair, {}, terms)
        elif opponent == OPPONENTS_ANY:
            self._wait_in_queue(mine, WAITING, terms)
        else:
            assert spec is not None
            self.nursery.start_soon(self._against, mine, spec, terms)
        return reply

    def _wait_in_queue(
        self, seat: BrowserSeat, words: str, terms: Terms, *, ahead: bool = False
    ) -> None:
        """A person in a browser joins the queue (at its front if ``ahead``: sent back to
        it): seated at once, or waiting (``words`` on their page, a "leave" button) while
        their page is open."""
        assert self.nursery is not None
        seat.place(-1, [])  # (its seat is known once it is seated)
        entry = pairing.Waiting[Seat[Any, Any]](seat)
        table = self.room.join(entry, terms, ahead=ahead)
        if table is not None:
            self.seat_table(table, terms)
            return
        queue = self.queue_of(terms)
        seat.leaving = lambda: queue.leave(entry)
        seat.wait_for(words)
        self.nursery.start_soon(self._queued, entry, seat, terms)

    async def _queued(
        self, entry: pairing.Waiting[Seat[Any, Any]], seat: BrowserSeat, terms: Terms
    ) -> None:
        """A person in a browser waits in the queue while their page is open (or comes back
        within `GRACE`); if they go, or leave, they are not seated."""
        gone = None
        if self.arrival is not None:
            arrival, grace = self.arrival, self.grace

            async def gone() -> None:
                await seat.gone(arrival, grace)

        queue = self.queue_of(terms)
        post = Post(movable=False)
        # (a person playing here from another process waits here only: never relayed on)
        watch = gone if isinstance(seat, RemoteSeat) else self.room.watch(gone, post, terms)
        if not await queue.wait(entry, watch):
            if post.guest is not None and self._guest(seat, post, terms):
                return  # (played at the process of the person who waited there)
            seat.call_off("You left the queue: no game was played.")

    # -- two people at two processes (hub.declared.remote) -------------------------------------

    def _guest(self, seat: BrowserSeat, post: Post, terms: Terms) -> bool:
        """The person of ``seat`` took the wait of a person at another process (``post``'s
        guest): their game is played there, their page stays here; if that process
        declines or does not answer, they wait here again."""
        relays = self.sharing.relays if self.sharing is not None else None
        if relays is None or post.guest is None or seat.over:
            return False

        def back() -> None:
            if not self.closing:
                self._wait_in_queue(seat, WAITING, terms, ahead=True)
            else:
                seat.call_off(f"{CLOSING}: no game was played.")

        relays.join(seat, self.game.name, post.guest, post.choice.key, back)
        return True

    def take_guest(self, link: str, body: dict[str, Any]) -> bool:
        """A person at another process took the wait of a person here (a join: `_guest`
        there): seat them here (`RemoteSeat`) in that wait's queue, where the game starts as
        usual; False if that wait is over (they then wait at their own)."""
        sharing = self.sharing
        entry = body.get("entry")
        post = sharing.posts.get(entry) if sharing is not None and isinstance(entry, int) else None
        if post is None or post.movable or self.closing or sharing is None:
            return False
        assert sharing.relays is not None and self.desk is not None
        terms = post.choice.terms or self.default
        seat = sharing.relays.seat_for(self.game_of(terms), link, body, self.desk.draws)
        self._wait_in_queue(seat, WAITING, terms)
        return True


async def serve(
    game: Game[Any, Any],
    control: TimeControl | Offer,
    options: argparse.Namespace,
    *,
    operators: OperatorMaker | None = None,
    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
) -> int:
    """Serve ``game`` until cancelled (``operators``: the operator's round-robin, with
    ``--admin-token`` and ``--web``, at ``/admin/round-robin`` and ``/match``)."""
    prog = f"hub serve {game.name}"
    err = Output(2)
    try:
        listeners = await open_listeners(options.port, options.host)
    except ListenError as exc:
        err.line(f"{prog}: can't listen on port {options.port}: {exc}")
        err.flush()
        return 1
    events = EventBus()
    path = record_path(options)
    offer = control if isinstance(control, Offer) else None
    lobby = GameServer(
        game,
        control.controls[0] if isinstance(control, Offer) else control,
        events,
        offer=offer,
        desk=SeatDesk(),
        arrival=ARRIVAL,
        grace=options.grace,
        names=None if path is None else NameBook.at(path),
        guests=options.guests,
    )
    limits = fit_open_files(limits_from_args(options))
    from hub.records.recording import open_recording, report

    async with trio.open_nursery() as nursery:
        lobby.nursery = nursery
        await nursery.start(
            lambda task_status: serve_lines(
                lobby.handle, listeners, limits=limits, max_line=MAX_LINE, task_status=task_status
            )
        )
        port = bound_port(listeners)
        # the database before the port (a signal after the port never lands in its opening)
        problem = await open_recording(nursery, events, path, prog=prog)
        err.line(str(port))
        err.flush()
        report(problem)
        if problem is not None:  # (no database: no names either, every player is a guest)
            lobby.names = None
        boards = None if path is None or problem is not None else LeaderboardReader(path)
        if boards is not None:
            nursery.start_soon(keep_ratings, lobby, boards)
        if lobby.queue.size == 2:
            lobby.sharing = await open_sharing(
                record_path(options), options.host, port, game.name, lobby.waiting_on, prog
            )
        live = None
        if lobby.sharing is not None:
            nursery.start_soon(lobby.sharing.listen)
            live = await start_live(nursery, lobby.sharing.queue, events)
            lobby.sharing.relays = await start_relays(nursery, lobby.sharing.queue)
            lobby.sharing.relays.host(game.name, lobby.take_guest)
        stop_log = log_games(events, logging.getLogger(f"hub.games.{game.name}"))
        try:
            if options.web is not None:
                from hub.web.ratings import Ratings
                from hub.web.records import RecordsReader
                from hub.web.server import start_web

                web = await start_web(
                    nursery,
                    events,
                    options.web,
                    err=err,
                    prog=prog,
                    records=RecordsReader.of(path),
                    desk=lobby.desk,
                    starter=lobby,
                    allowed_hosts=options.allowed_hosts,
                    ratings=None if boards is None else Ratings(boards, (game.name,)),
                    operator=None
                    if operators is None
                    else operators(lobby, options.admin_token, None if boards is None else path),
                )
                if web is None:
                    nursery.cancel_scope.cancel()
                    return 1
                if live is not None:  # (the games running at the other processes too)
                    follow_elsewhere(live, game.name, web.index.set_elsewhere)
            task_status.started(port)
            await trio.sleep_forever()
        finally:
            stop_log()
            if lobby.names is not None:
                lobby.names.close()
            if lobby.sharing is not None and lobby.sharing.relays is not None:
                await lobby.sharing.relays.flush()  # (a guest told its game's end)
            if live is not None:
                await live.aclose()
            if lobby.sharing is not None:
                await lobby.sharing.aclose()
    return 0


RATINGS_EVERY = 60.0
"""Seconds between two readings of the ratings the pairing of "next to arrive" uses."""


async def keep_ratings(lobby: GameServer, boards: LeaderboardReader) -> None:
    """Keep ``lobby``'s ratings (its pairing's) up to date with the leaderboard."""
    while True:
        await lobby.refresh_ratings(boards)
        await trio.sleep(RATINGS_EVERY)
