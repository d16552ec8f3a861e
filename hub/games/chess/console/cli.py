"""``hub play chess`` as a program: its options (`parse_options`, ``--help`` from
`help_parser`), `run` (the trio adapter: bounded lines from standard input, any bytes, a line
cut by the end of the input still counts; EPIPE-safe output), `run_with_gui` (``--gui``: the
live page's URL on standard error first), `run_recorded` (every finished game into the
records database) and `main` (exit status 0 at the end of input, 2 for bad arguments, 130 on
Ctrl-C)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

import trio

from hub.core.commands.running import only_keyboard_interrupts, run_program
from hub.core.commands.usage import Parser, help_text, option_strings, show_help
from hub.core.io.lines import LineError, LineStream, LineTooLong, PeerClosed
from hub.core.io.output import Output
from hub.core.io.stdin import ThreadedFdReceiveStream
from hub.core.io.text import parse_whole_number, wants_help
from hub.core.model.bus import EventBus
from hub.games.chess.console.options import (
    DEFAULT_MOVETIME_MS,
    MAX_MOVETIME_MS,
    MAX_NODES,
    SEEDED_NODES,
    ConsoleOptions,
)
from hub.games.chess.console.session import ConsoleSession, open_console
from hub.games.chess.console.terminal import Terminal
from hub.records.options import add_record_options
from hub.records.recording import recording

if TYPE_CHECKING:
    from hub.games.chess.console.gui import ConsolePage

MAX_LINE = 1024

USAGE = (
    "Usage: hub play chess [--classic] [--gui] [--seed N] [--movetime MS] [--nodes N]"
    " [--db PATH] [--no-record]"
)


def help_parser() -> Parser:
    """``hub play chess --help`` (the options are parsed by `parse_options`, whose usage
    error is the one `USAGE` line; an option missing here is refused there)."""
    parser = Parser(
        "hub play chess",
        usage=USAGE.removeprefix("Usage: "),
        description="Chess in the terminal: type commands (help lists them) to play people "
        "or the computer levels 1-4, set up positions and take moves back; the end of input "
        "(Ctrl-D) prints the final score. --help works as the only argument.",
    )
    add = parser.add_argument
    add(
        "--classic",
        action="store_true",
        help="only the original assignment's commands and "
        "output: no undo, history, hint, help, SAN moves (default: every extra)",
    )
    add(
        "--gui",
        action="store_true",
        help="also show the games in the browser, where a human to move may move too: "
        "a live page whose URL (with its key) is printed on stderr (default: the terminal only)",
    )
    add(
        "--seed",
        metavar="N",
        help="make every computer level and hint reproducible (default: fresh randomness)",
    )
    add(
        "--movetime",
        metavar="MS",
        help="level 4's (and hint's) time per move in ms "
        f"(default: {DEFAULT_MOVETIME_MS}; with --seed: {SEEDED_NODES} nodes instead)",
    )
    add(
        "--nodes",
        metavar="N",
        help="level 4's budget per move in nodes instead of time "
        "(default: a time budget, see --movetime)",
    )
    add_record_options(parser)
    return parser


def parse_options(args: Sequence[str]) -> ConsoleOptions | None:
    """The options, or None for a usage error."""
    flags = {"--classic": False, "--gui": False, "--no-record": False}
    numbers: dict[str, int] = {}
    db: str | None = None
    rest = list(args)
    known = option_strings(help_parser())
    while rest:
        option = rest.pop(0)
        if option not in known:
            return None
        if flags.get(option) is False:
            flags[option] = True
            continue
        if option == "--db" and db is None and rest and rest[0]:
            db = rest.pop(0)
            continue
        limits = {"--seed": 2**63, "--movetime": MAX_MOVETIME_MS, "--nodes": MAX_NODES}
        if option not in limits or option in numbers or not rest:
            return None
        value = parse_whole_number(rest.pop(0))
        if value is None or value > limits[option] or (option != "--seed" and value < 1):
            return None
        numbers[option] = value
    return ConsoleOptions(
        classic=flags["--classic"],
        gui=flags["--gui"],
        seed=numbers.get("--seed"),
        movetime_ms=numbers.get("--movetime"),
        nodes=numbers.get("--nodes"),
        db=db,
        no_record=flags["--no-record"],
    )


async def run(
    options: ConsoleOptions,
    stream: LineStream,
    out: Output,
    *,
    bus: EventBus | None = None,
    terminal: Terminal | None = None,
    page: ConsolePage | None = None,
) -> None:
    """Feed every input line to a console session and print its answers, then the final
    score. Its games are published to ``bus`` (``--gui`` subscribes to it). With ``page``
    (``--gui``), the page's commands take turns with the input's lines (its lock) and the
    page follows the session until the final score.

    A Ctrl-C or SIGTERM prints the final score too, whichever task trio raised it in: in the
    command loop, or in a game's task that was running at that instant (the nursery then
    cancels the loop and passes the interrupt on), so it is caught around the session."""
    session: ConsoleSession | None = None
    lock = page.lock if page is not None else trio.Lock()
    try:
        async with open_console(options, bus=bus, terminal=terminal) as console:
            session = console
            if page is not None:
                page.attach(console)
            try:
                while True:
                    try:
                        line = await stream.receive_line()
                    except PeerClosed as closed:
                        if closed.partial:
                            text = closed.partial.decode("latin-1")
                            async with lock:
                                _print(out, await console.handle(text))
                        break
                    except LineTooLong as exc:
                        _print(out, console.line_too_long())
                        if not exc.dropped:
                            try:
                                await stream.skip_line()
                            except PeerClosed:
                                break
                        continue
                    async with lock:
                        _print(out, await console.handle(line))
                        if page is not None:
                            page.changed()
            except LineError:
                pass  # standard input failed: end as at the end of the input
            async with lock:
                if page is not None:
                    page.attach(None)
                _print(out, await console.finish())
    except BaseException as exc:
        if session is not None and only_keyboard_interrupts(exc):  # the score, as Ctrl-D
            _print(out, session.final_score())
        raise


async def run_with_gui(
    options: ConsoleOptions,
    stream: LineStream,
    out: Output,
    err: Output,
    *,
    bus: EventBus | None = None,
    terminal: Terminal | None = None,
) -> None:
    """`run` with the graphical display: the URL of the console's own page (``/play/TOKEN``,
    where its person moves too: `hub.games.chess.console.gui`) on its own line on stderr
    before the first command is read; the page follows the console's games until the end of
    input. The spectators' page, read-only, is ``/console``."""
    from hub.games.chess.console.gui import ConsolePage, serve_page
    from hub.web.play import Desk
    from hub.web.server import WebServer, serve_web  # only --gui needs the web stack

    bus = bus if bus is not None else EventBus()
    page = ConsolePage(bus)
    desk: Desk = page
    async with trio.open_nursery() as nursery:
        server: WebServer = await nursery.start(partial(serve_web, bus, desk=desk))
        _print(err, [server.url(f"/play/{page.token}")])
        nursery.start_soon(serve_page, page, out, err)
        await run(options, stream, out, bus=bus, terminal=terminal, page=page)
        nursery.cancel_scope.cancel()


def _print(out: Output, lines: list[str]) -> None:
    for line in lines:
        out.line(line)
    out.flush()


def main(args: Sequence[str] = ()) -> int:
    """``hub play chess``: exit 0 at the end of input, 2 for bad arguments."""
    if wants_help(args):
        return show_help(help_text(help_parser()))
    options = parse_options(args)
    out = Output(1)
    if options is None:
        err = Output(2)
        err.line(USAGE)
        err.flush()
        return 2
    if not options.classic and sys.stdin is not None and sys.stdin.isatty():
        _print(out, ["Chess: type help for the commands."])
    stream = LineStream(ThreadedFdReceiveStream(0), None, max_line=MAX_LINE)
    return run_program(run_recorded, options, stream, out, Terminal.detect()) or 0


async def run_recorded(
    options: ConsoleOptions, stream: LineStream, out: Output, terminal: Terminal | None = None
) -> None:
    """`run` (or `run_with_gui`) with every finished game written to the records database."""
    bus = EventBus()
    async with recording(bus, options.record_path, prog="hub play chess"):
        if options.gui:
            await run_with_gui(options, stream, out, Output(2), bus=bus, terminal=terminal)
        else:
            await run(options, stream, out, bus=bus, terminal=terminal)
