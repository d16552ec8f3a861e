"""``hub play GAME SEAT SEAT ...`` for every declared game: one local game, any seats.

The seats are `hub.declared.seats` specs (``human``, ``ai:4``, ``random``, ``./bot.py``,
``tcp``, ``web``); the game's settings are its options (``--rows 7``); ``--tc`` sets the
clocks, ``--seed`` the random choices (a random start, ``random`` players), ``--web`` serves
the web board (kept up after the game until Ctrl-C), ``--port`` is where ``tcp`` seats wait
for their clients. The game is recorded (``--db``, ``--no-record``) and printed as it goes.
A ``web`` seat's clock starts only once its person has opened the printed page (the terminal
says whom it waits for); a person who has not within `ARRIVAL` seconds calls the game off,
and one whose page has been gone for `GRACE` seconds mid-game leaves it (a disconnect).
Exit status: 0 once a game was played (whatever its result), 1 if it was called off, 2 for
wrong usage, 130/143 on Ctrl-C/SIGTERM.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import random
import signal
from collections.abc import AsyncIterator, Sequence
from typing import Any

import trio

from hub.core.commands.running import run_program
from hub.core.commands.usage import Parser
from hub.core.io.output import Output
from hub.core.model.bus import EventBus
from hub.core.model.clock import TimeControl
from hub.core.play.game import Game, SettingsError
from hub.core.play.match import Match
from hub.core.play.vocabulary import Seat
from hub.declared.browser import (
    ARRIVAL,
    GRACE,
    REMATCH_KINDS,
    BrowserSeat,
    RematchOffer,
    cannot_ask,
    come,
    people,
    play_attended,
    rotated,
    who,
)
from hub.declared.options import (
    add_game_options,
    add_time_control,
    read_command_line,
    settings_from,
    time_control,
)
from hub.declared.seats import SeatMaker, SeatSpec, ai_levels, bot_seat, parse_seat
from hub.declared.terminal import KeyboardPerson, Narrator, PersonWords
from hub.records.options import add_record_options, record_path
from hub.web.options import add_web_option, web_address


def parser_for(game: type[Game[Any, Any]], verb: str = "play") -> Parser:
    low, high = game.players
    count = f"{low}" if low == high else f"{low} to {high}"
    parser = Parser(
        f"hub {verb} {game.name}",
        usage=f"hub {verb} {game.name} [SEAT ...] [OPTIONS]",
        description=f"{game.summary}. Play one game between {count} seats (default: "
        f"{' '.join(default_seats(game))}). A SEAT is ai or ai:N (levels "
        f"{_levels(game)}), mcts:N (the general game player, levels 1-10), random, human "
        "(you, at this terminal), web (a person in a "
        "browser: needs --web; the seat's page is printed, and its clock starts once the "
        f"page is open, else the game is called off after {ARRIVAL:g} s; a page closed for "
        f"{GRACE:g} s mid-game is a disconnect), tcp (a client of --port "
        "speaking the JSON bot protocol) or "
        "a program speaking it over pipes (docs/bots.md).",
    )
    parser.add_argument(
        "seats",
        nargs="*",
        metavar="SEAT",
        help=f"who plays, in seat order (default: {' '.join(default_seats(game))})",
    )
    add_game_options(parser, game)
    add_time_control(parser, "none")
    parser.add_argument(
        "--seed", type=int, default=None, help="seed of the random choices (default: any)"
    )
    parser.add_argument(
        "--port",
        metavar="[HOST:]PORT",
        type=web_address,
        default=("127.0.0.1", 0),
        help="where tcp seats wait for their clients (default 0: any free port, on 127.0.0.1)",
    )
    add_web_option(parser)
    add_record_options(parser)
    return parser


def _levels(game: type[Game[Any, Any]]) -> str:
    levels = ai_levels(game)
    return f"{levels[0]}-{levels[-1]}" if levels else "none"


def default_seats(game: type[Game[Any, Any]]) -> list[str]:
    other = "ai" if ai_levels(game) else "random"
    return ["human", *[other] * (game.players[0] - 1)]


def main(game_class: type[Game[Any, Any]], args: Sequence[str]) -> int:
    def build(options: argparse.Namespace) -> tuple[Any, ...]:
        texts = options.seats or default_seats(game_class)
        game = game_class(settings_from(options, game_class), seats=len(texts))
        specs = [parse_seat(text, game_class) for text in texts]
        if any(spec.kind == "web" for spec in specs) and options.web is None:
            raise SettingsError("a web seat needs --web PORT (its page is served there)")
        return game, specs, time_control(options.tc), options

    parsed = read_command_line(parser_for(game_class), args, build)
    if isinstance(parsed, int):
        return parsed
    game, specs, control, options = parsed
    seed = options.seed if options.seed is not None else random.SystemRandom().randrange(2**31)
    status: int = run_program(play, game, specs, control, seed, options, cancel_on_signal=True)
    return status


async def play(
    game: Game[Any, Any],
    specs: Sequence[SeatSpec],
    control: TimeControl,
    seed: int,
    options: argparse.Namespace,
) -> int:
    prog = f"hub play {game.name}"
    out, err = Output(1), Output(2)
    bus = EventBus()
    from hub.records.recording import recording

    async with trio.open_nursery() as nursery, recording(bus, record_path(options), prog=prog):
        web = None
        host = LocalResources(game, nursery, out, err, options)
        if options.web is not None:
            from hub.web.records import RecordsReader
            from hub.web.server import start_web

            records = RecordsReader.of(record_path(options))
            web = await start_web(
                nursery,
                bus,
                options.web,
                err=err,
                prog=prog,
                desk=host.desk,
                records=records,
                allowed_hosts=options.allowed_hosts,
            )
            if web is None:
                return 1
            host.web_url = web.url
        host.bus, host.control, host.arrival = bus, control, ARRIVAL
        if not await host.play_game(list(specs), seed, []):
            nursery.cancel_scope.cancel()
            return 1
        status = 0
        if web is not None:
            err.line(f"{prog}: the game is over; its page stays up at {web.url('/')} until Ctrl-C")
            err.flush()
            status = await until_signal()
        nursery.cancel_scope.cancel()
    return status


async def until_signal() -> int:
    """Wait for Ctrl-C or SIGTERM, received here rather than raised into the web server's
    tasks: the exit status 130 or 143, after an orderly shutdown."""
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for signum in signals:
            return 143 if signum == signal.SIGTERM else 130
    return 130  # pragma: no cover - the receiver never ends by itself


class LocalResources:
    """The seats that need this program's resources: the keyboard and the tcp listener."""

    def __init__(
        self,
        game: Game[Any, Any],
        nursery: trio.Nursery,
        out: Output,
        err: Output,
        options: argparse.Namespace,
    ) -> None:
        self.game = game
        self.nursery = nursery
        self.out = out
        self.err = err
        self.address: tuple[str, int] = options.port
        self.keyboard: Any = None
        self.keyboard_turns = trio.Lock()  # people at one keyboard choose one at a time
        self.listener: trio.SocketListener | None = None
        from hub.declared.browser import SeatDesk

        self.desk = SeatDesk()
        self.web_url: Any = None
        self.bus = EventBus()
        self.control = TimeControl()
        self.games = 0
        self.arrival: float | None = None
        """Seconds a web seat's person has to open their page (None: nobody is waited for,
        as for seats played in memory; the command gives `ARRIVAL`)."""

    async def play_game(
        self, specs: list[SeatSpec], seed: int, browsers: list[BrowserSeat]
    ) -> bool:
        """One game of ``specs``; its web seats are ``browsers`` (opened already: a rematch)
        or opened now. Its browser seats are offered a rematch (`offer_rematch`). False if
        it was called off (a person in a browser did not come: `everyone_came`)."""

        pending = list(browsers)
        opened: list[BrowserSeat] = []

        @contextlib.asynccontextmanager
        async def web(spec: SeatSpec, seat: int) -> AsyncIterator[Seat[Any, Any]]:
            browser = pending.pop(0) if pending else self.desk.open(self.game)
            opened.append(browser)
            name = self.game.seat_name(seat)
            url = self.web_url(f"/play/{browser.token}")
            self.err.line(f"hub play {self.game.name}: {name} plays in the browser at {url}")
            self.err.flush()
            yield browser

        game = self.game
        self.games += 1
        maker = SeatMaker(game, seed, {"human": self.human, "tcp": self.tcp, "web": web})
        async with maker.seats(specs) as seats:
            if not await self.everyone_came(seats):
                return False
            self.offer_rematch(specs, opened, seed)
            humans = [n for n, spec in enumerate(specs) if spec.kind == "human"]
            players = [seat.player for seat in seats]
            narrator = Narrator(game, self.out, players, humans[0] if len(humans) == 1 else None)
            match = Match(
                game,
                game.start(random.Random(seed)),
                seats,
                events=self.bus,
                time_control=self.control,
                settings=game.settings,
                spectators=[narrator],
            )
            await play_attended(match, seats, GRACE if self.arrival is not None else math.inf)
        return True

    async def everyone_came(self, seats: Sequence[Seat[Any, Any]]) -> bool:
        """Wait until each web seat's person has opened their page (no clock runs before;
        the terminal says whom it waits for). If one has not within ``arrival`` seconds (or
        closed it for `GRACE`), the game is called off: nothing is played or recorded."""
        prog = f"hub play {self.game.name}"

        def told(missing: list[int]) -> None:
            self.err.line(
                f"{prog}: waiting for {who(self.game, seats, missing)} to open their page "
                "in the browser: no clock runs until then"
            )
            self.err.flush()

        absent = await come(self.game, seats, self.arrival, GRACE, told)
        if not absent:
            return True
        missing = who(self.game, seats, absent)
        for number, seat in people(seats):
            seat.call_off(
                "You did not come in time: no game was played."
                if number in absent
                else f"The game was called off: {missing} did not come in time."
            )
        self.err.line(
            f"{prog}: the game is called off: {missing} did not open their page within "
            f"{ARRIVAL:g} seconds (nothing was played or recorded)"
        )
        self.err.flush()
        return False

    def offer_rematch(self, specs: list[SeatSpec], browsers: list[BrowserSeat], seed: int) -> None:
        """The rematch of a game with web seats: the seats rotated by one (colours swapped),
        started in the program's nursery once every web seat asked; none when a seat is a
        person at the terminal or a program (it cannot be asked)."""
        if not browsers:
            return
        own = set(self.game.programs.kinds)
        others = [spec.kind for spec in specs if spec.kind not in REMATCH_KINDS | own]
        if others:
            RematchOffer(browsers, None, cannot_ask(others[0])).offer_to()
            return

        def start() -> list[BrowserSeat]:
            fresh = [self.desk.open(self.game, seat.player) for seat in browsers]
            # the web seats keep their order when the seats rotate: the k-th web seat's
            # person plays the k-th web seat of the rematch, one seat further up
            people = rotated(fresh) if specs[0].kind == "web" else fresh
            self.nursery.start_soon(self.play_game, rotated(specs), seed + self.games, people)
            return fresh

        RematchOffer(browsers, start).offer_to()

    @contextlib.asynccontextmanager
    async def human(self, spec: SeatSpec, seat: int) -> AsyncIterator[Seat[Any, Any]]:
        from hub.core.io.stdin import open_line_input
        from hub.core.model.values import PlayerInfo

        async with contextlib.AsyncExitStack() as stack:
            if self.keyboard is None:
                self.keyboard = await stack.enter_async_context(open_line_input())
            yield KeyboardPerson(
                self.keyboard,
                self.out,
                PersonWords(self.game),
                PlayerInfo("you", "person", "human"),
                turns=self.keyboard_turns,
            )

    @contextlib.asynccontextmanager
    async def tcp(self, spec: SeatSpec, seat: int) -> AsyncIterator[Seat[Any, Any]]:
        from hub.core.io.lines import LineStream
        from hub.core.io.listen import bound_port, open_listeners

        if self.listener is None:  # one listener (one port) for every tcp seat
            host, port = self.address
            self.listener = (await open_listeners(port, host))[0]
        name = self.game.seat_name(seat)
        port = bound_port([self.listener])
        self.err.line(f"hub play {self.game.name}: {name} waits for a client on port {port}")
        self.err.flush()
        stream = await self.listener.accept()
        try:
            lines = LineStream(stream, stream)
            yield await bot_seat(self.game, lines, "client", "remote", "tcp")
        finally:
            await trio.aclose_forcefully(stream)
