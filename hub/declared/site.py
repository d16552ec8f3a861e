"""``hub serve`` with no game named: every installed game at one address, one process.

The site is one `hub.declared.serve.GameServer` per declared game (its queue, its built-in
players, its browser seats, its clock), never a second server: this module only puts them
behind one TCP port and one web address, and shuts them down gracefully.

* **TCP** (docs/bots.md): a connection is welcomed with the games served
  (``{"type":"welcome","protocol":1,"games":["chess","clubs","connect4","kalah"]}``); each
  hello names the game it wants (``"game":"connect4"``) and is handed to that game's
  server (`GameServer.play_hello`), so a bot waits in that game's queue with the people in
  its lobby; after ``end`` its next hello may name another game. A hello without a game,
  or with a game not served, gets ``{"type":"error","error":...}`` saying which games
  there are, and the connection closes (as every bad hello).
* **Web** (``--web``): `hub.web.site`: a home page of the games, each game's lobby under
  ``/GAME/``, ``/health``.
* **Several processes** (``--db postgresql://...``; docs/postgres.md): `Site.share` shares
  each game's waiting queue with the other processes (`hub.declared.sharing`) and lists
  the games running at them in each lobby (`hub.records.live`).
* **Logs**: one line per event, ``key=value`` (`kv`), under ``hub.site``: connections,
  hellos, refusals, games started and ended, the drain; ``--log-level info`` shows them.
* **Shutdown** (`Site.drain`): the first SIGINT or SIGTERM closes every game's server
  (no new game; the waiting players are told and leave the queues; ``/health`` says
  ``draining`` with 503) and lets the running games finish for up to ``--drain`` seconds;
  the games still running then are ended as aborted with the detail `ADJOURNED`, and
  recorded with every move (the records store keeps them, unlike other aborted games). A
  second signal ends the wait at once (the games are adjourned the same way). The exit
  status is 130 (SIGINT) or 143 (SIGTERM) as for every server. Run again on the same
  database, the players resume an adjourned game (hub.declared.adjourned: a bot's hello
  ``"resume": GAME_ID``, a person's "Resume" on the lobby page).
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
from collections.abc import Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import attrs
import trio

from hub.core.commands.plugin import GamePlugin
from hub.core.commands.running import run_program
from hub.core.commands.usage import Parser
from hub.core.io.limits import add_limit_options, fit_open_files, limits_from_args
from hub.core.io.lines import LineError
from hub.core.io.listen import ListenError, bound_port, open_listeners
from hub.core.io.output import Output
from hub.core.io.serve import Connection, serve_lines
from hub.core.io.serverlog import add_log_options, configure_logging, log_level_from_args
from hub.core.model.bus import EventBus
from hub.core.model.clock import TimeControl
from hub.core.model.events import Event, GameEnded, GameRecord, GameStarted
from hub.core.model.referee import Termination
from hub.core.play.game import TC_HELP as TC_TEXT
from hub.core.play.game import Game
from hub.core.play.jsonbot import MAX_LINE, BadHello, Hello, dumps, site_welcome_line
from hub.declared.adjourned import ADJOURNED, Resumptions
from hub.declared.browser import ARRIVAL, GRACE, SeatDesk
from hub.declared.hellos import CLOSING
from hub.declared.names import add_name_options
from hub.declared.options import add_admin_option, read_command_line, time_control
from hub.declared.remote import RelayHub, start_relays
from hub.declared.seats import handshake
from hub.declared.serve import (
    DEFAULT_TC,
    GameServer,
    OperatorMaker,
    add_grace_option,
    keep_ratings,
    seconds,
)
from hub.declared.sharing import (
    Sharing,
    follow_elsewhere,
    listen_all,
    open_queue,
    start_live,
)
from hub.declared.terms import Offer, add_terms_options, offer_from
from hub.records.identities import NameBook
from hub.records.leaderboard import LeaderboardReader
from hub.records.options import add_record_options, record_path
from hub.records.resuming import SharedHolds
from hub.web.options import add_web_option
from hub.web.records import RecordsReader

if TYPE_CHECKING:
    from hub.records.live import LiveList
    from hub.records.waiting import SharedQueue

PROG = "hub serve"
DEFAULT_DRAIN = 30.0
ADJOURN_SECONDS = 10.0
"""How long the adjourned games may take to tell their players (each seat's end is bounded)."""
log = logging.getLogger("hub.site")


def kv(event: str, **fields: object) -> str:
    """A log line of ``key=value`` pairs (``event=hello game=connect4 name="my bot"``): a
    value with a space, a quote or an ``=`` is quoted as JSON."""
    parts = [f"event={event}"]
    for key, value in fields.items():
        text = str(value)
        if not text or any(ch in text for ch in ' "=\\') or not text.isprintable():
            text = json.dumps(text, ensure_ascii=False)
        parts.append(f"{key}={text}")
    return " ".join(parts)


def declared_games(plugins: Mapping[str, GamePlugin]) -> dict[str, type[Game[Any, Any]]]:
    """The installed games that are declared `Game`s (every one the site can serve), by
    name; a declaration that does not import is left out (``hub games`` says why)."""
    found: dict[str, type[Game[Any, Any]]] = {}
    for name, plugin in plugins.items():
        try:
            game = plugin.declaration()
        except Exception:
            continue
        if game is not None:
            found[name] = game
    return found


def players_text(game: Game[Any, Any]) -> str:
    """How many play ``game``: ``2``, ``2-4``."""
    low, high = game.players
    return str(low) if low == high else f"{low}-{high}"


def kept(record: GameRecord) -> bool:
    """The games the site records: the finished ones and those its shutdown adjourned."""
    if record.termination is not Termination.ABORTED:
        return True
    return record.detail == ADJOURNED


@attrs.define(eq=False)
class Site:
    """Every game's `GameServer` behind one TCP handler (`handle`), its health (`status`)
    and its graceful shutdown (`stop`, `hurry`, `drain`).

    Each server publishes on its own bus (its lobby page follows it); everything is also
    forwarded to ``events``, the site's bus (the records, the logs)."""

    servers: dict[str, GameServer]
    events: EventBus = attrs.Factory(EventBus)
    closing: bool = False
    stopping: trio.Event = attrs.Factory(trio.Event)
    """Set by `stop` (the first signal): `serve` drains and ends."""
    _hurry: trio.CancelScope = attrs.Factory(trio.CancelScope)
    live: LiveList | None = None
    """The games running at every process of a hub on PostgreSQL (`share`), None alone."""
    relays: RelayHub | None = None
    """This process's seats relayed to or from another process (`share`), None alone."""
    holds: SharedHolds | None = None
    """Which process of a hub on PostgreSQL resumes each adjourned game (`share`)."""
    operators: OperatorMaker | None = None
    """Makes a game's `hub.web.app.Operator` (hub.tournament.arena's `operator_for`, given
    by the command: tournaments are a layer above): with ``--admin-token`` the operator
    may start a round-robin among the bots present. None: no operator."""

    def __attrs_post_init__(self) -> None:
        for server in self.servers.values():
            server.events.forward(self.events)

    @classmethod
    def of(
        cls,
        games: Sequence[Game[Any, Any]],
        controls: Mapping[str, TimeControl],
        *,
        arrival: float | None = ARRIVAL,
        grace: float = GRACE,
        offers: Mapping[str, Offer] | None = None,
    ) -> Site:
        """A site of ``games``, each on its clock in ``controls`` (by name), with what people
        may choose in ``offers`` (by name; default: that clock alone)."""
        servers = {
            game.name: GameServer(
                game,
                controls[game.name],
                EventBus(),
                desk=SeatDesk(),
                arrival=arrival,
                grace=grace,
                offer=(offers or {}).get(game.name),
            )
            for game in games
        }
        return cls(servers)

    @property
    def names(self) -> list[str]:
        return list(self.servers)

    # -- TCP ----------------------------------------------------------------------------------

    async def handle(self, connection: Connection) -> None:
        """One TCP client: the welcome (once), then each hello played by its game's server
        until the client leaves or says something wrong."""
        where: dict[str, object] = {"conn": connection.number, "peer": connection.peer}
        log.info(kv("connected", **where))
        try:
            await self._converse(connection, where)
        finally:
            for server in self.servers.values():  # (a round-robin's player forfeits the rest)
                server.hung_up(connection)
            log.info(kv("closed", **where))

    async def _converse(self, connection: Connection, where: dict[str, object]) -> None:
        lines = connection.lines
        try:
            await lines.send_line(site_welcome_line(self.names))
            while True:
                hello = await handshake(lines, "", welcome=False)
                server = self._server_for(hello)
                asked: dict[str, object] = {"resume": hello.resume} if hello.resume else {}
                log.info(
                    kv(
                        "hello",
                        **where,
                        game=hello.game,
                        name=hello.name,
                        opponent=hello.opponent,
                        **asked,
                    )
                )
                await server.play_hello(connection, hello)
                if self.closing:
                    raise BadHello(CLOSING)
        except BadHello as exc:  # docs/bots.md: an error, and the connection closes
            log.info(kv("refused", **where, reason=exc))
            try:
                await lines.send_line(dumps({"type": "error", "error": str(exc)}))
            except LineError:
                return
        except LineError:
            return

    def _server_for(self, hello: Hello) -> GameServer:
        if self.closing:
            raise BadHello(CLOSING)
        games = ", ".join(self.names)
        if not hello.game:
            raise BadHello(f'name the game in the hello ("game": one of {games})')
        server = self.servers.get(hello.game)
        if server is None:
            raise BadHello(f"no game {hello.game!r} here; the games are {games}")
        return server

    # -- several processes on one PostgreSQL (docs/postgres.md) -------------------------------

    async def share(
        self, nursery: trio.Nursery, where: object, host: str, port: int
    ) -> SharedQueue | None:
        """Share the waiting queue of every game of two through the PostgreSQL database
        ``where`` (one `SharedQueue` for the process, one `Sharing` per game, its calls
        answered in ``nursery``), this process reached at ``host:port``: a player waiting
        for a game here is paired with one who came to another process's site, or to a
        ``hub serve GAME`` of that game. The queue (to close at the end), or None: nothing
        shared (an SQLite file, or a database that cannot be used: a line on stderr)."""
        queue = await open_queue(where, host, port, PROG)
        if queue is None:
            return None
        sharings = []
        for name, server in self.servers.items():
            if server.queue.size == 2:
                server.sharing = Sharing(queue, name, server.waiting_on)
                sharings.append(server.sharing)
        nursery.start_soon(listen_all, queue, sharings)
        self.live = await start_live(nursery, queue, self.events)
        relays = self.relays = await start_relays(nursery, queue)  # (people at two processes)
        for name, server in self.servers.items():
            if server.sharing is not None:
                server.sharing.relays = relays
                relays.host(name, server.take_guest)
        self.holds = SharedHolds(queue, nursery)
        for server in self.servers.values():
            if server.resumptions is not None:  # (one process resumes each adjourned game)
                server.resumptions.holds = self.holds
        return queue

    def others(self, game: str) -> Any:
        """How ``game``'s lobby follows the games running at the other processes (None when
        nothing is shared): `hub.web.site.SiteGame.others`."""
        live = self.live
        if live is None:
            return None

        return partial(follow_elsewhere, live, game)

    # -- health -------------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """``/health``: ``ok`` or ``draining``, and per game the games running, the players
        waiting in its queue and the games played since the start (with ``elsewhere``, the
        games running at the other processes of a hub on PostgreSQL)."""
        report: dict[str, Any] = {
            "status": "draining" if self.closing else "ok",
            "games": {
                name: {
                    "playing": len(server.running),
                    "waiting": server.waiting,
                    "played": server.games,
                }
                for name, server in self.servers.items()
            },
        }
        if self.live is not None:  # (the other processes' running games, as last read)
            for name, counts in report["games"].items():
                counts["elsewhere"] = self.live.seen.playing.get(name, 0)
        return report

    # -- shutdown -----------------------------------------------------------------------------

    def stop(self) -> None:
        """Begin the shutdown (the first signal): `serve` drains, then ends."""
        self.stopping.set()

    def hurry(self) -> None:
        """Cut the drain short (a second signal): the running games are adjourned now."""
        self.stopping.set()
        self._hurry.cancel()

    async def drain(self, seconds: float) -> int:
        """Close every game's server, let its running games finish within ``seconds``
        (or until `hurry`), then end the rest as adjourned (`ADJOURNED`); returns how many
        were adjourned."""
        self.closing = True
        for server in self.servers.values():
            server.close()
        playing = sum(len(server.running) for server in self.servers.values())
        log.info(kv("draining", playing=playing, seconds=f"{seconds:g}"))
        with self._hurry:
            with trio.move_on_after(seconds):
                for server in self.servers.values():
                    await server.drained()
        left = sum(len(server.running) for server in self.servers.values())
        if left:
            log.info(kv("adjourning", games=left))
            for server in self.servers.values():
                server.adjourn(ADJOURNED)
            with trio.move_on_after(ADJOURN_SECONDS):
                for server in self.servers.values():
                    await server.drained()
        log.info(kv("drained", finished=playing - left, adjourned=left))
        return left

    # -- logs ---------------------------------------------------------------------------------

    def log_events(self) -> Any:
        """Log each game's start and end (``key=value``); returns the function that stops
        it. Listens only when ``hub.site`` logs at info (a listener makes every move's
        event)."""
        if not log.isEnabledFor(logging.INFO):
            return lambda: None

        def listen(event: Event) -> None:
            if isinstance(event, GameStarted):
                names = " vs ".join(player.name for player in event.players)
                log.info(kv("game_started", game=event.game, id=event.game_id[:8], players=names))
            elif isinstance(event, GameEnded):
                record = event.record
                log.info(
                    kv(
                        "game_ended",
                        game=record.game,
                        id=event.game_id[:8],
                        players=" vs ".join(player.name for player in record.players),
                        winners=",".join(str(seat) for seat in record.winners) or "none",
                        termination=record.termination.value,
                        moves=len(record.moves),
                        detail=record.detail,
                    )
                )

        return self.events.listen(listen, moves=False)


# -- the command ------------------------------------------------------------------------------


def parser(games: Sequence[str]) -> Parser:
    """``hub serve``'s options (``games``: the declared games it would serve)."""
    made = Parser(
        PROG,
        usage="hub serve [OPTIONS]  |  hub serve GAME [ARGS ...]",
        description="Serve every installed game at one address: "
        f"{', '.join(games) or 'none installed'}. One TCP port for programs speaking the "
        'JSON bot protocol (docs/bots.md; the hello names the game: "game":"connect4"), '
        "its port printed alone on the first line of stderr; with --web, one web address "
        "(its URL on the next line) with a home page of the games, each game's lobby at "
        "/GAME/ and /health. SIGINT or SIGTERM stops it gracefully: no new games, the "
        "running ones finish within --drain seconds, the rest are adjourned (recorded, and "
        'resumed by their players when it runs again on the same --db: "resume" in a bot\'s '
        "hello, Resume on the lobby page); a second signal adjourns them at once "
        "(docs/running.md). `hub serve GAME` serves one "
        "game with its own options (hub serve GAME --help).",
    )
    made.add_argument(
        "--port", default="0", help="the TCP port for bots (default 0: any free port)"
    )
    made.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)",
    )
    made.add_argument(
        "--games",
        metavar="NAMES",
        default=None,
        help="serve only these games, comma-separated (default: every installed one)",
    )
    made.add_argument(
        "--tc",
        metavar="[GAME=]TC",
        action="append",
        default=[],
        help=f"{TC_TEXT}, for every game, or GAME=TC for one game; repeat it (the default "
        f"of --tc-choices) (default {DEFAULT_TC} for every game)",
    )
    made.add_argument(
        "--drain",
        metavar="SECONDS",
        type=seconds(86_400, zero=True),
        default=DEFAULT_DRAIN,
        help="on SIGINT or SIGTERM, how long the running games may take to finish before "
        f"they are adjourned (default {DEFAULT_DRAIN:g})",
    )
    add_terms_options(made, per_game=True)
    add_limit_options(made)
    add_log_options(made)
    add_web_option(made)
    add_grace_option(made)
    add_record_options(made)
    add_name_options(made)
    add_admin_option(made)
    return made


def build(
    available: Mapping[str, type[Game[Any, Any]]], options: argparse.Namespace
) -> tuple[list[Game[Any, Any]], dict[str, TimeControl]]:
    """The games to serve, on their default settings, and each one's clock; `ValueError`
    (a usage error) for a game not installed or a bad ``--tc``."""
    names = list(available)
    if options.games is not None:
        names = [name.strip() for name in options.games.split(",") if name.strip()]
        unknown = [name for name in names if name not in available]
        if unknown or not names:
            raise ValueError(
                f"--games: no game {', '.join(unknown) or '(none named)'}; the installed "
                f"games are {', '.join(available)}"
            )
    tcs = _per_game("--tc", options.tc, names, DEFAULT_TC)
    controls = {name: time_control(tcs[name] or DEFAULT_TC) for name in names}
    return [available[name]({}) for name in names], controls


def _per_game(
    flag: str, given: Sequence[str], names: Sequence[str], default: str | None
) -> dict[str, str | None]:
    """Each served game's value of a ``[GAME=]VALUE`` option given ``given`` times (the
    last for every game, unless one names the game); `ValueError` for a game not served."""
    every, one = default, {}
    for text in given:
        game, equals, value = text.partition("=")
        if not equals:
            every = text
        elif game.strip() not in names:
            raise ValueError(f"{flag} {text}: {game!r} is not served")
        else:
            one[game.strip()] = value
    return {name: one.get(name, every) for name in names}


def offers(
    games: Sequence[Game[Any, Any]], controls: Mapping[str, TimeControl], options: Any
) -> dict[str, Offer]:
    """Each game's `Offer` from ``--tc-choices`` and ``--offer``; `ValueError` if wrong."""
    names = [game.name for game in games]
    tcs = _per_game("--tc-choices", options.tc_choices, names, None)
    offered = _per_game("--offer", options.offer, names, None)
    return {
        game.name: offer_from(game, controls[game.name], tcs[game.name], offered[game.name])
        for game in games
    }


def main(
    plugins: Mapping[str, GamePlugin],
    args: Sequence[str],
    operators: OperatorMaker | None = None,
) -> int:
    """``hub serve [OPTIONS]``: the exit status (``operators``: `Site.operators`)."""
    available = declared_games(plugins)

    def built(options: argparse.Namespace) -> tuple[Any, ...]:
        games, controls = build(available, options)
        return games, controls, offers(games, controls, options), options

    parsed = read_command_line(parser(list(available)), args, built)
    if isinstance(parsed, int):
        return parsed
    games, controls, offered, options = parsed
    configure_logging(PROG, log_level_from_args(options))
    site = Site.of(games, controls, grace=options.grace, offers=offered)
    site.operators = operators
    status: int = run_program(_with_signals, site, options, cancel_on_signal=True)
    return status


async def _with_signals(site: Site, options: argparse.Namespace) -> int:
    """`serve` with the signals received here: the first stops (drains), the second hurries;
    the exit status 128 + the first signal."""
    got: list[int] = []

    async def watch(task_status: trio.TaskStatus[None]) -> None:
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            task_status.started()
            async for signum in signals:
                got.append(signum)
                log.info(kv("signal", signal=signal.Signals(signum).name))
                if len(got) == 1:
                    site.stop()
                else:
                    site.hurry()

    async with trio.open_nursery() as nursery:
        await nursery.start(watch)
        status = await serve(site, options)
        nursery.cancel_scope.cancel()
    return 128 + got[0] if got else status


async def serve(
    site: Site,
    options: argparse.Namespace,
    *,
    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
) -> int:
    """Serve ``site`` until `Site.stop`, then drain (``options.drain`` seconds) and end;
    reports the TCP port once it accepts connections (it is printed on stderr too)."""
    err = Output(2)
    try:
        listeners = await open_listeners(options.port, options.host)
    except ListenError as exc:
        err.line(f"{PROG}: can't listen on port {options.port}: {exc}")
        err.flush()
        return 1
    limits = fit_open_files(limits_from_args(options))
    from hub.records.recording import open_recording, report

    async with trio.open_nursery() as outer:  # the records and the web: they outlive the games
        path = record_path(options)
        problem = await open_recording(outer, site.events, path, prog=PROG, keep=kept)
        # one book of names and one leaderboard for every game (no database: all guests)
        boards = None if path is None or problem is not None else LeaderboardReader(path)
        records = None if boards is None or path is None else RecordsReader.at(path)
        book = None if boards is None or path is None else NameBook.at(path)
        for server in site.servers.values():
            server.guests = options.guests
            server.names = book
            if records is not None:  # adjourned games are played on from their records
                server.resumptions = Resumptions(records.get, records.adjourned)
        stop_log = site.log_events()
        queue: SharedQueue | None = None
        try:
            async with trio.open_nursery() as games:
                for server in site.servers.values():
                    server.nursery = games
                await games.start(
                    partial(serve_lines, site.handle, listeners, limits=limits, max_line=MAX_LINE)
                )
                port = bound_port(listeners)
                err.line(str(port))
                err.flush()
                report(problem)
                if boards is not None:
                    for server in site.servers.values():
                        games.start_soon(keep_ratings, server, boards)
                if problem is None:
                    queue = await site.share(games, path, options.host, port)
                web_ok = options.web is None or await _start_web(outer, site, options, err, boards)
                if not web_ok:
                    games.cancel_scope.cancel()
                    outer.cancel_scope.cancel()
                    return 1
                log.info(kv("serving", port=port, games=",".join(site.names)))
                task_status.started(port)
                await site.stopping.wait()
                await site.drain(options.drain)
                games.cancel_scope.cancel()
        finally:
            stop_log()
            if book is not None:
                book.close()
            if site.relays is not None:
                await site.relays.flush()  # (a guest told of its game adjourned)
            if site.holds is not None:
                await site.holds.aclose()
            if site.live is not None:
                await site.live.aclose()
            if queue is not None:
                await queue.aclose()
        outer.cancel_scope.cancel()
    return 0


async def _start_web(
    nursery: trio.Nursery,
    site: Site,
    options: argparse.Namespace,
    err: Output,
    boards: LeaderboardReader | None,
) -> bool:
    from hub.web.ratings import Ratings
    from hub.web.records import RecordsReader
    from hub.web.site import SiteGame, start_site

    reader = RecordsReader.of(record_path(options))
    games = [
        SiteGame(
            name,
            server.game.summary,
            players_text(server.game),
            server.events,
            server.desk or SeatDesk(),
            server,
            None if reader is None else reader.of_game(name),
            None if boards is None else Ratings(boards, (name,)),
            site.others(name),
            None
            if site.operators is None
            else site.operators(
                server, options.admin_token, None if boards is None else record_path(options)
            ),
        )
        for name, server in site.servers.items()
    ]
    web = await start_site(
        nursery,
        games,
        site.status,
        options.web,
        err=err,
        prog=PROG,
        allowed_hosts=options.allowed_hosts,
    )
    return web is not None
