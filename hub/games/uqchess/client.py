"""``uqchessclient portnum [--versus computer|human] [--colour black|white]``.

`parse_args` and `ClientSession` are pure: the session turns a line the user typed into what
to send and what to say (`UserAction`), and a server line into what to print, tracking the
game, the turn and the colour. `run` is the thin trio adapter: it reads standard input and
the socket at the same time, prints server lines as they arrive, and never dies of SIGPIPE
(a failed write to the server is ignored; the reading side then sees the connection closed
and reports it).

Our additions, outside the spec's output: ``help`` lists the commands (on standard error,
where the client's own messages go; the spec would answer ``Try again - command is not
valid``), and on a terminal (only there) a board is drawn with Unicode pieces and colour
(`hub.chess.board_art.styled_d_line`) and the welcome is followed by a hint to type ``help``
(docs/uqchess.md, "The client for people").
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

import attrs
import trio

from hub.chess.board_art import PLAIN, BoardStyle, detect_style, styled_d_line
from hub.core.commands.running import run_program
from hub.core.commands.usage import Parser, help_text, show_help
from hub.core.io.lines import (
    LineError,
    LineStream,
    LineTooLong,
    PeerClosed,
    TransportFailed,
    iter_lines,
)
from hub.core.io.listen import ListenError, resolve_port
from hub.core.io.output import Output
from hub.core.io.stdin import ThreadedFdReceiveStream, ensure_standard_fds
from hub.core.io.text import wants_help
from hub.games.uqchess import protocol as p

PROGRAM = "uqchessclient"
USAGE = "Usage: uqchessclient portnum [--versus computer|human] [--colour black|white]"
WELCOME = "Welcome to UQChessClient - written by s4800658"
NOT_VALID = "Try again - command is not valid"
NOT_IN_PROGRESS = "Invalid command - game not in progress"
NOT_YOUR_TURN = "Invalid command - not your turn"
GONE_AWAY = f"{PROGRAM}: server has gone away"
TRY_HELP = "Type help for the commands."
EXIT_USAGE = 13
EXIT_CONNECT = 11
EXIT_GONE = 8
MAX_STDIN_LINE = 4096
MAX_SERVER_LINE = 65536


@attrs.frozen
class ClientOptions:
    port: str
    versus: p.Against = "computer"
    colour: p.ColourChoice = "white"


def help_parser() -> Parser:
    """``uqchessclient --help`` (as the only argument); `parse_args` keeps the spec's usage
    error (exit 13) for everything else."""
    parser = Parser(
        PROGRAM,
        usage=USAGE.removeprefix("Usage: "),
        description="Play chess on a UQChess server (uqchessserver or hub serve uqchess) on "
        "localhost, against the computer or another client. Once connected, type help for the "
        "commands. Wrong usage prints the spec's usage line and exits 13; --help works as the "
        "only argument.",
    )
    parser.add_argument(
        "portnum", help="the server's port number or service name (required; no default)"
    )
    parser.add_argument(
        "--versus",
        choices=p.AGAINST,
        help="play the computer or another client (default: computer)",
    )
    parser.add_argument(
        "--colour",
        choices=("black", "white"),
        help="the colour to ask for (default: white against the computer, either against a human)",
    )
    return parser


def parse_args(args: Sequence[str]) -> ClientOptions | None:
    """The options, or None for the usage error (exit 13)."""
    if not args or any(not arg for arg in args):
        return None
    port, rest = args[0], list(args[1:])
    values: dict[str, str] = {}
    while rest:
        option = rest.pop(0)
        if option not in ("--versus", "--colour") or option in values or not rest:
            return None
        values[option] = rest.pop(0)
    versus = values.get("--versus", "computer")
    colour = values.get("--colour")
    if versus not in p.AGAINST or (colour is not None and colour not in p.COLOURS):
        return None
    if colour is None:
        colour = "white" if versus == "computer" else "either"
    return ClientOptions(port, versus, colour)  # type: ignore[arg-type]


@attrs.frozen
class UserAction:
    """What to do about a line typed by the user."""

    send: str | None = None
    complaint: str | None = None
    quit: bool = False
    info: tuple[str, ...] = ()
    """Lines for the user (``help``), printed on standard error."""


@attrs.define
class ClientSession:
    """The client's view of the game, from what it sent and what the server said."""

    options: ClientOptions
    in_progress: bool = False
    board_kept: bool = False
    colour: p.Colour = "white"
    turn: p.Colour = "white"
    style: BoardStyle = PLAIN
    """How boards are shown: the server's lines as they are, or on a terminal restyled."""
    in_board: bool = False

    def newgame(self) -> str:
        self.board_kept = False
        return p.format_command(p.StartRequest(self.options.versus, self.options.colour))

    def on_user_line(self, line: str) -> UserAction:
        words = line.split(" ")
        if line == "quit":
            return UserAction(quit=True)
        if line == "newgame":
            return UserAction(send=self.newgame())
        if line == "help":
            return UserAction(info=self.help_lines())
        command: p.ClientCommand
        needs_turn = True
        match words:
            case ["print"]:
                if not (self.in_progress or self.board_kept):
                    return UserAction(complaint=NOT_IN_PROGRESS)
                return UserAction(send=p.format_command(p.BoardRequest()))
            case ["hint"]:
                command = p.Hint(all=False)
            case ["possible"]:
                command = p.Hint(all=True)
            case ["move", move] if p.is_move_text(move):
                command = p.MoveRequest(move)
            case ["resign"]:
                command, needs_turn = p.Resign(), False
            case _:
                return UserAction(complaint=NOT_VALID)
        if not self.in_progress:
            return UserAction(complaint=NOT_IN_PROGRESS)
        if needs_turn and self.turn != self.colour:
            return UserAction(complaint=NOT_YOUR_TURN)
        return UserAction(send=p.format_command(command))

    def help_lines(self) -> tuple[str, ...]:
        """``help``: the commands (our addition; the spec's set is unchanged)."""
        versus, colour = self.options.versus, self.options.colour
        return (
            "Commands:",
            f"  newgame     start a new game (--versus {versus} --colour {colour}), at any time",
            "  print       show the board (of the game, or of the last one)",
            "  hint        the best move (on your turn)",
            "  possible    every legal move (on your turn)",
            "  move e2e4   make a move: from and to squares, a promotion adds q, r, b or n",
            "  resign      concede the game",
            "  quit        leave (so does the end of input)",
            "  help        this list",
        )

    def on_server_line(self, line: str) -> str | None:
        """Track the state; return the line to print (None for startboard/endboard)."""
        match p.parse_message(line):
            case p.Started(colour):
                self.in_progress, self.colour, self.turn = True, colour, "white"
                self.board_kept = False
            case p.Accepted() | p.MovedMessage():
                self.turn = p.other(self.turn)
            case p.GameOver():
                if self.in_progress:
                    self.board_kept = True
                self.in_progress = False
            case p.BoardStart():
                self.in_board = True
                return None
            case p.BoardEnd():
                self.in_board = False
                return None
        return styled_d_line(line, self.style) if self.in_board else line


# -- I/O -----------------------------------------------------------------------------------


class _Exit(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


async def _read_server(session: ClientSession, server: LineStream, out: Output) -> None:
    """Show the server's lines (over-long ones are ignored) until it goes away: `LineError`."""
    async for line in iter_lines(server):
        if isinstance(line, LineTooLong):
            continue
        shown = session.on_server_line(line)
        if shown is not None:
            out.line(shown)
            out.flush()
    raise PeerClosed()


async def _read_user(
    session: ClientSession, user: LineStream, server: LineStream, err: Output
) -> int:
    try:
        async for line in iter_lines(user):
            action = session.on_user_line("\n" if isinstance(line, LineTooLong) else line)
            if action.quit:
                return 0
            if action.complaint is not None:
                err.line(action.complaint)
                err.flush()
            if action.info:
                for text in action.info:
                    err.line(text)
                err.flush()
            if action.send is not None:
                await server.send_line(action.send)
    except TransportFailed:
        pass  # no readable stdin at all: as at its end
    return 0  # EOF, even mid-line


async def run(
    options: ClientOptions,
    out: Output,
    err: Output,
    stdin: trio.abc.ReceiveStream | None = None,
    style: BoardStyle = PLAIN,
    interactive: bool = False,
) -> int:
    """Connect, play until ``quit``/EOF (0) or the server goes away (8). ``style`` draws
    boards for a terminal; ``interactive`` (a person at a terminal) adds a hint to type
    ``help`` after the welcome, on standard error."""
    try:
        port = resolve_port(options.port)
        if port == 0:
            raise ListenError("port 0")
        stream = await trio.open_tcp_stream("localhost", port)
    except (ListenError, OSError):
        err.line(f'{PROGRAM}: can\'t connect to port "{options.port}"')
        return EXIT_CONNECT
    server = LineStream(stream, stream, max_line=MAX_SERVER_LINE, ignore_send_errors=True)
    user = LineStream(stdin or ThreadedFdReceiveStream(0), None, max_line=MAX_STDIN_LINE)
    session = ClientSession(options, style=style)
    out.line(WELCOME)
    out.flush()
    if interactive:
        err.line(TRY_HELP)
        err.flush()
    status = EXIT_GONE
    async with stream:
        await server.send_line(session.newgame())
        async with trio.open_nursery() as nursery:

            async def server_side() -> None:
                nonlocal status
                try:
                    await _read_server(session, server, out)
                except LineError:
                    status = EXIT_GONE
                    err.line(GONE_AWAY)
                    nursery.cancel_scope.cancel()

            async def user_side() -> None:
                nonlocal status
                status = await _read_user(session, user, server, err)
                nursery.cancel_scope.cancel()

            nursery.start_soon(server_side)
            nursery.start_soon(user_side)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """The ``uqchessclient`` console script."""
    args = list(sys.argv[1:] if argv is None else argv)
    out, err = Output(1), Output(2)
    if wants_help(args):
        return show_help(help_text(help_parser()))
    options = parse_args(args)
    if options is None:
        err.line(USAGE)
        err.flush()
        return EXIT_USAGE
    ensure_standard_fds()
    try:
        style = detect_style(os.isatty(1), os.environ)
        interactive = os.isatty(0) and os.isatty(2)
        # Ctrl-C and SIGTERM: exit 130/143 with the output flushed (docs/uqchess.md)
        return run_program(run, options, out, err, None, style, interactive)
    finally:
        out.flush()
        err.flush()


if __name__ == "__main__":
    sys.exit(main())
