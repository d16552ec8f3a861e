"""``clubhub deckfile winscore prog1 prog2 [prog3 [prog4]]``: referee one clubs game.

The thin I/O layer of clubs: it parses the command line and the deck file, starts the
players as child processes (`hub.games.clubs.table`), and plays the game through the core
match loop (`hub.core.play.match.Match`): the game's declaration (`ClubsGame`: its rules, a
card's text, its forfeit rule), one
`LineSeat` speaking `ClubsCodec` per player, and a `ClubhubNarrator` watching the game (a spectator)
that prints the transcript. Whatever happens (game over, a faulty player, SIGINT) every
player is sent ``end`` and reaped within 2 seconds, then the exit reports and the hub's own
message are printed and the hub exits with the status of clubs.md.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

import attrs
import trio

from hub.core.commands.running import TERMINATED, interrupted_status
from hub.core.io.output import Output
from hub.core.io.process import ChildProcess, ExitStatus
from hub.core.io.programs import resolve_program
from hub.core.io.text import wants_help
from hub.core.model.bus import EventBus
from hub.core.model.identity import person_identity, program_identity
from hub.core.model.referee import Termination
from hub.core.model.values import PlayerInfo
from hub.core.play.match import Match
from hub.core.play.seats import LineSeat
from hub.core.play.vocabulary import MatchResult, Moved, Seat, Spectator
from hub.games.clubs.cards import Card
from hub.games.clubs.codec import ClubsCodec, ClubsSettings
from hub.games.clubs.game import ClubsGame
from hub.games.clubs.launch import (
    MESSAGES,
    Arguments,
    CommandLineError,
    EarlyStart,
    HubExit,
    abandon,
    check_arguments,
)
from hub.games.clubs.pictures import hand_texts
from hub.games.clubs.protocol import LABELS, scores_line
from hub.games.clubs.rules import ClubsState, new_game
from hub.games.clubs.table import (
    DEFAULT_START_TIMEOUT,
    END_GRACE,
    HUMAN,
    StartFailure,
    adopt_players,
    end_players,
    start_players,
)
from hub.records.options import add_record_options, db_path_from
from hub.records.recording import environment_record_path, start_recording

if TYPE_CHECKING:
    from hub.core.commands.usage import Parser
    from hub.core.io.stdin import LineInput
    from hub.records.database import Location
    from hub.web.limits import AllowedHosts

from hub.web.options import (
    ENVIRONMENT,
    add_web_option,
    allowed_hosts,
    web_address,
    web_from_environment,
)

PLAY_PROG = "hub play clubs"
START_TIMEOUT_ENV = "CLUBHUB_START_TIMEOUT"
"""Overrides `DEFAULT_START_TIMEOUT`, the seconds the players have to send their ``-``."""


@attrs.frozen
class Config:
    decks: tuple[tuple[Card, ...], ...]
    winscore: int
    programs: tuple[str, ...]
    deck_name: str = ""
    start_timeout: float = DEFAULT_START_TIMEOUT
    end_grace: float = END_GRACE
    person: int | None = None
    """The seat of a person at the terminal (``hub play clubs``'s ``human``), if any."""
    explain: bool = False
    """``hub play clubs``: find programs as ``hub match`` does (beside hub's interpreter,
    then on PATH) and say in words which player could not start and what to do."""


def parse_command_line(args: Sequence[str]) -> Config:
    """Check the arguments in the order of the exit table; raises `CommandLineError`."""
    return config_of(check_arguments(args))


def config_of(arguments: Arguments) -> Config:
    return Config(
        arguments.decks,
        arguments.winscore,
        arguments.programs,
        deck_name=arguments.deck_name,
        start_timeout=_start_timeout(),
    )


def _start_timeout() -> float:
    try:
        value = float(os.environ.get(START_TIMEOUT_ENV, DEFAULT_START_TIMEOUT))
    except ValueError:
        return DEFAULT_START_TIMEOUT
    return value if value > 0 else DEFAULT_START_TIMEOUT


# -- the transcript (pure, from the typed states) --------------------------------------------


def hand_lines(state: ClubsState) -> list[str]:
    """Every player's hand, as printed at the start of each round."""
    return [
        f"Player ({LABELS[seat]}): {','.join(hand_texts(hand))}"
        for seat, hand in enumerate(state.hands)
    ]


def transcript_lines(seat: int, card: str, before: ClubsState, after: ClubsState) -> list[str]:
    """What the hub prints for one card (by ``seat``, as text) that took ``before`` to
    ``after``. A card is led if it is the only one in the trick (a trick has at least two
    cards, so a completed one was not led)."""
    verb = "led" if len(after.trick) == 1 else "played"
    lines = [f"Player {LABELS[seat]} {verb} {card}"]
    if after.finished or after.round != before.round:
        lines.append(scores_line(after.scores))
        if not after.finished:
            lines.extend(hand_lines(after))
    return lines


def winners_line(winners: Iterable[int]) -> str:
    return "Winner(s): " + " ".join(LABELS[seat] for seat in sorted(winners))


# -- the I/O adapters ----------------------------------------------------------------------


@attrs.define(eq=False)
class ClubhubNarrator:
    """Prints the game on stdout, one write per round; at the end, the winners of a game
    that no player left early. A `hub.core.play.vocabulary.Spectator`: it reads the typed states, so
    a game nobody else watches never builds the JSON state views of the event stream."""

    out: Output

    def started(self, state: ClubsState) -> None:
        for line in hand_lines(state):
            self.out.line(line)

    def moved(self, moved: Moved[ClubsState, Card]) -> None:
        before, after = moved.before, moved.after
        for line in transcript_lines(moved.seat, moved.text, before, after):
            self.out.line(line)
        if after.finished or after.round != before.round:
            self.out.flush()

    def ended(self, result: MatchResult[ClubsState, Card]) -> None:
        self.out.flush()
        if result.outcome.termination is Termination.NORMAL:
            self.out.line(winners_line(result.outcome.winners))
            self.out.flush()


FAULT_EXITS = {
    Termination.DISCONNECT: HubExit.QUIT,
    Termination.RESIGNATION: HubExit.QUIT,  # the person in ``hub play clubs`` left
    Termination.MALFORMED: HubExit.MESSAGE,
    Termination.ILLEGAL_MOVE: HubExit.PLAY,
}


@attrs.define(eq=False)
class ClubhubRun:
    """One run of clubhub: the children it started and what became of the game."""

    config: Config
    out: Output
    bus: EventBus = attrs.Factory(EventBus)
    """The game's events: the transcript printer listens, ``HUB_WEB``'s web view subscribes."""
    children: list[ChildProcess] = attrs.Factory(list)
    all_started: bool = False
    interrupted: bool = False
    keyboard: LineInput | None = None
    """The person's typing, when ``config.person`` is set."""
    start_failure: StartFailure | None = None
    early: EarlyStart | None = None
    """The players `hub.games.clubs.launch` started before the engine was imported."""

    @property
    def program_seats(self) -> list[int]:
        """The seats played by programs (every seat but the person's), in order."""
        person = self.config.person
        return [seat for seat in range(len(self.config.programs)) if seat != person]

    def commands(self) -> list[str | None]:
        """What to start in each seat (None: the person's)."""
        config = self.config
        return [
            None
            if seat == config.person
            else (resolve_program(program) or program)
            if config.explain
            else program
            for seat, program in enumerate(config.programs)
        ]

    def seats(self) -> list[Seat[ClubsState, Card]]:
        """A `LineSeat` per started program and a `PersonSeat` for the person."""
        codec = ClubsCodec()
        children = iter(self.children)
        commands = self.commands()
        seats: list[Seat[ClubsState, Card]] = []
        for seat, program in enumerate(self.config.programs):
            if seat == self.config.person:
                assert self.keyboard is not None
                from hub.core.play.person import PersonSeat  # (only for a person)
                from hub.games.clubs.person import ClubsPersonCodec

                player = PlayerInfo(HUMAN, "person", HUMAN, person_identity(HUMAN))
                seats.append(PersonSeat(self.keyboard, self.out, ClubsPersonCodec(), player))
            else:
                command = commands[seat] or program
                player = PlayerInfo(program, "program", program, program_identity(command))
                seats.append(LineSeat(next(children).lines, codec, player))
        return seats

    async def play(self) -> HubExit:
        config = self.config
        programs = config.programs
        failure = await start_players(
            self.commands(), self.children, config.start_timeout, early=self.early
        )
        if failure is not None:
            self.start_failure = failure
            return HubExit.START
        self.all_started = True
        bus = self.bus
        seats = self.seats()
        spectators: list[Spectator[ClubsState, Card]] = []
        if config.person is None:
            spectators.append(ClubhubNarrator(self.out))
        else:
            from hub.games.clubs.person import PersonNarrator

            players = [seat.player for seat in seats]
            spectators.append(PersonNarrator(self.out, config.person, players))
        game = ClubsGame(seats=len(programs))
        match = Match(
            game,
            new_game(config.decks, len(programs), config.winscore),
            seats,
            events=bus,
            settings=ClubsSettings(config.decks, config.winscore, 0, config.deck_name).to_json(),
            spectators=spectators,
        )
        result = await match.run()
        if bus.errors:  # the transcript is the contract: a broken printer is a bug to show
            raise bus.errors[0]
        if result.fault is None:
            return HubExit.OK
        return FAULT_EXITS[result.fault.termination]

    async def end_players(self) -> list[ExitStatus]:
        """Send ``end`` to every player still running and reap all within ``end_grace``."""
        return await end_players(self.children, self.config.end_grace)


def start_failure_text(config: Config, failure: StartFailure) -> str:
    """Which player could not start and what to do, in words (``hub play clubs``)."""
    program = config.programs[failure.seat]
    who = f"player {LABELS[failure.seat]} {program!r}"
    if failure.termination is Termination.DISCONNECT and "could not be started" in failure.detail:
        if os.sep in program:
            return f"cannot start {who}: not an executable file (check the path and its mode)"
        if resolve_program(program) is None:
            return f"cannot start {who}: not found on PATH (give a path, or activate the venv)"
        return f"cannot start {who}: {failure.detail}"
    if failure.termination is Termination.TIMEOUT:
        return f"{who} {failure.detail}: is it a clubs player? ({START_TIMEOUT_ENV} allows more)"
    return f"{who} {failure.detail}: is it a clubs player? (it must send '-' first)"


def exit_report(label: str, status: ExitStatus) -> str | None:
    if status.signal is not None:
        return f"Player {label} terminated due to signal {status.signal}"
    if status.code:
        return f"Player {label} exited with status {status.code}"
    return None


async def run(
    config: Config,
    out: Output,
    err: Output,
    web: tuple[str, int] | None = None,
    record: Location | None = None,
    early: EarlyStart | None = None,
    allowed_hosts: AllowedHosts | None = None,
) -> HubExit:
    """Play the game and shut everything down; print reports and the error; return the status.
    ``web``: serve the live web view of the game there (its URL first on stderr), answering
    to ``allowed_hosts`` (default: its address and the loopback names).
    ``record``: write the finished game to this records database (hub.records)."""
    session = ClubhubRun(config, out, early=early)
    if early is not None:  # ours to reap from here on, whatever happens
        session.children.extend(adopt_players(early))
    status = HubExit.OK
    got: list[int] = []
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with contextlib.AsyncExitStack() as stack, trio.open_nursery() as nursery:
            if config.person is not None:
                from hub.core.io.stdin import open_line_input

                session.keyboard = await stack.enter_async_context(open_line_input())
            if web is not None:
                await start_web_view(nursery, session.bus, web, err, allowed_hosts)
            await start_recording(nursery, session.bus, record, prog="clubhub")

            async def watch_sigint() -> None:
                async for signum in signals:
                    got.append(signum)
                    session.interrupted = True
                    nursery.cancel_scope.cancel()
                    return

            nursery.start_soon(watch_sigint)
            status = await session.play()
            nursery.cancel_scope.cancel()
        if session.interrupted:
            status = HubExit.SIGTERM if got == [signal.SIGTERM] else HubExit.SIGINT
        statuses = await session.end_players()
    out.flush()
    if session.all_started:
        for seat, child_status in zip(session.program_seats, statuses, strict=True):
            report = exit_report(LABELS[seat], child_status)
            if report is not None:
                err.line(report)
    if status in MESSAGES:
        err.line(MESSAGES[status])
    if config.explain and session.start_failure is not None:
        err.line(f"{PLAY_PROG}: {start_failure_text(config, session.start_failure)}")
    err.flush()
    return status


async def start_web_view(
    nursery: trio.Nursery,
    bus: EventBus,
    web: tuple[str, int],
    err: Output,
    allowed_hosts: AllowedHosts | None = None,
) -> None:
    """The live web view (hub.web) of the game; a port it cannot have is only a warning:
    the game the spec describes goes on."""
    from hub.web.server import start_web  # only a web view needs the web stack

    await start_web(nursery, bus, web, err=err, prog="clubhub", allowed_hosts=allowed_hosts)


def help_parser(*, play: bool = False) -> Parser:
    """``clubhub --help`` (``hub play clubs --help`` with ``play``), as the only argument; the
    arguments themselves are parsed by hand, with the spec's messages and exit statuses."""
    from hub.core.commands.usage import Parser  # (argparse only for the help: start-up time)

    prog = "hub play clubs" if play else "clubhub"
    extra = " [--web [HOST:]PORT] [--allowed-hosts NAMES] [--db PATH] [--no-record]" if play else ""
    parser = Parser(
        prog,
        usage=f"{prog} deckfile winscore prog1 prog2 [prog3 [prog4]]{extra}",
        description="Referee the clubs card game (docs/clubs.md) between 2 to 4 player programs "
        "over pipes; the lowest score wins. Wrong usage prints the spec's message and exit "
        "status (1 usage, 2 invalid score, 3 deck file cannot be opened, 4 invalid deck, 5 a "
        "player could not be started); --help works as the only argument.",
        epilog=f"Environment: {START_TIMEOUT_ENV}=SECONDS the players have to say they are ready "
        f"(default: {DEFAULT_START_TIMEOUT:g})"
        + ("." if play else f"; {ENVIRONMENT}=[HOST:]PORT a live web view, HUB_DB=PATH "
           "records the game (default: neither)."),
    )  # fmt: skip
    parser.add_argument("deckfile", help="the decks to play, one after another (required)")
    parser.add_argument(
        "winscore",
        help="the game ends after the round in which a player reaches this score (required)",
    )
    who = "a program (a name on PATH or a path, e.g. clubber)" + (
        " or human (you, at this terminal)" if play else ""
    )
    parser.add_argument("prog1", help=f"the first player: {who} (required)")
    parser.add_argument("prog2", help="the second player, likewise (required)")
    parser.add_argument("prog3", nargs="?", help="a third player, likewise (default: none)")
    parser.add_argument("prog4", nargs="?", help="a fourth player, likewise (default: none)")
    if play:
        add_web_option(parser)
        add_record_options(parser)
    return parser


def _show_help(*, play: bool) -> int:
    from hub.core.commands.usage import help_text, show_help

    return show_help(help_text(help_parser(play=play)))


def main(
    argv: Sequence[str] | None = None,
    *,
    web: tuple[str, int] | None = None,
    record: Callable[[], Location | None] = environment_record_path,
    explain: bool = False,
    early: EarlyStart | None = None,
    allowed_hosts: AllowedHosts | None = None,
) -> int:
    """``clubhub``: its arguments are the spec's; ``$HUB_WEB=[HOST:]PORT`` adds the web view,
    ``$HUB_DB=PATH`` records the game there (``record``: where to record, once the arguments
    are known to be good). ``explain`` (``hub play clubs``): a ``human`` player is the person
    at the terminal, and errors also say in words what went wrong and what to do.
    ``early``: the arguments were checked and the players started before this module was
    imported (`hub.games.clubs.launch`, the ``clubhub`` script); the game adopts them."""
    args = sys.argv[1:] if argv is None else list(argv)
    if wants_help(args):
        return _show_help(play=False)
    out, err = Output(1), Output(2)
    handed = False  # whether the players started early were handed to the game
    try:
        try:
            config = config_of(early.arguments) if early else parse_command_line(args)
        except CommandLineError as exc:
            err.line(MESSAGES[exc.status])
            if explain and exc.detail:
                err.line(f"{PLAY_PROG}: {exc.detail}")
            err.flush()
            return exc.status
        if explain:
            people = [seat for seat, program in enumerate(config.programs) if program == HUMAN]
            if len(people) > 1:
                err.line(f"{PLAY_PROG}: only one {HUMAN} can take a seat (each hand is secret)")
                err.flush()
                return HubExit.USAGE
            config = attrs.evolve(config, person=people[0] if people else None, explain=True)
        if web is None:
            try:
                web = web_from_environment()
            except ValueError as exc:
                err.line(f"clubhub: {ENVIRONMENT}: {exc}")
                err.flush()
                return HubExit.USAGE
        path = record()
        handed = True
        return trio.run(run, config, out, err, web, path, early, allowed_hosts)
    except KeyboardInterrupt:  # before the game's handler (``hub play clubs``'s start-up)
        out.flush()
        if interrupted_status() == TERMINATED:  # SIGTERM, delivered as Ctrl-C by ``hub``
            return HubExit.SIGTERM
        err.line(MESSAGES[HubExit.SIGINT])
        err.flush()
        return HubExit.SIGINT
    finally:
        if early is not None and not handed:
            abandon(early)  # the game never began: end and reap them here


def _take_value(args: list[str], option: str) -> str | None:
    """Remove ``option VALUE`` from ``args``: the value ("" if missing), None if absent."""
    if option not in args:
        return None
    at = args.index(option)
    value = args[at + 1] if at + 1 < len(args) else ""
    del args[at : at + 2]
    return value


def play_main(argv: Sequence[str]) -> int:
    """``hub play clubs``: clubhub's arguments, and ``--web [HOST:]PORT``, ``--db PATH`` and
    ``--no-record`` anywhere among them; the game is recorded unless ``--no-record``."""
    args = list(argv)
    if wants_help(args):
        return _show_help(play=True)
    no_record = "--no-record" in args
    if no_record:
        args.remove("--no-record")
    web_value = _take_value(args, "--web")
    hosts_value = _take_value(args, "--allowed-hosts")
    db = _take_value(args, "--db")
    problem = None
    web = hosts = None
    if web_value is not None:
        try:
            web = web_address(web_value)
        except ValueError as exc:
            problem = f"--web: {exc}"
    if hosts_value is not None:
        try:
            hosts = allowed_hosts(hosts_value)
        except ValueError as exc:
            problem = f"--allowed-hosts: {exc}"
    if db == "":
        problem = "--db needs a path"
    if problem is not None:
        err = Output(2)
        err.line(f"hub play clubs: {problem}")
        err.flush()
        return HubExit.USAGE
    path = None if no_record else db_path_from(db)
    return main(args, web=web, record=lambda: path, explain=True, allowed_hosts=hosts)


if __name__ == "__main__":
    sys.exit(main())
