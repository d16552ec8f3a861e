"""``hub play kalah``: a client for any server of kalah.md, or a local game at the terminal.

`play_remote` speaks the client side of the protocol over a `LineStream`: ``WELCOME``,
``INFO`` (the client's seat, limit and layout), ``READY``, an optional ``BEGIN``, then moves
and acknowledgements until a result. It validates the server's moves with our referee and
acknowledges only legal ones; a ``P`` from the server at the one moment it is allowed is
accepted even without ``--pie`` (the server knows its rules), but our client plays ``P``
only with ``--pie``. Its own time starts when it sends its ``OK`` (or receives ``BEGIN``,
or sends ``READY`` when the server omits ``BEGIN`` and we move first).

A local game at the terminal (`play_local`) is refereed by the core match loop like any
other (`hub.games.kalah.seats.new_match`, two `PlayerSeat`s); what the terminal shows is a
`BoardPrinter` listening to its events.

Exit status: 0 when the game ended with a result (won, lost or tied), 1 when the connection
failed or the server broke the protocol, 2 for bad arguments.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Sequence

import attrs
import trio

from hub.core.events import EventBus, GameRecord
from hub.core.lines import DEFAULT_MAX_LINE, LineError, LineStream, TransportFailed
from hub.core.output import Output
from hub.core.referee import IllegalMove
from hub.core.running import run_program
from hub.core.serve import ListenError, resolve_port
from hub.core.stdin import LineInput, open_line_input
from hub.core.usage import HelpRequested, hint, show_help
from hub.games.kalah.console import draw_board
from hub.games.kalah.options import PLAY_PROG, OptionsError, PlayOptions, parse_play
from hub.games.kalah.players import AiPlayer, HumanPlayer, Player, PlayerQuit
from hub.games.kalah.printer import GameView
from hub.games.kalah.protocol import (
    BEGIN,
    ILLEGAL,
    OK,
    READY,
    RESULTS,
    TIME,
    WELCOME,
    BadLine,
    Info,
    format_move,
    max_line,
    parse_info,
    parse_move,
    parse_server_line,
    safe_text,
)
from hub.games.kalah.rules import PIE, KalahState, Move, new_game, play
from hub.games.kalah.seats import local_seat, new_match
from hub.games.kalah.server import setup_game
from hub.records.recording import recording

BEGIN_WAIT = 1.0
"""Seconds a client moving first waits for ``BEGIN`` before it moves without it."""


class ProtocolError(Exception):
    """The server sent something the protocol does not allow here (or went away)."""


@attrs.frozen
class ClientResult:
    result: str
    """WINNER, LOSER or TIE from our point of view."""
    state: KalahState
    seat: int
    moves: tuple[tuple[int, Move], ...]
    info: Info


@attrs.define(eq=False)
class _Session:
    lines: LineStream
    out: Output
    quiet: bool
    max_line: int = DEFAULT_MAX_LINE
    """The longest line to accept: the game's `max_line` once ``INFO`` has come."""
    begun: bool = False
    pending: str | None = None

    async def read(self) -> str:
        """The next line that is not a ``BEGIN`` (noting that one came)."""
        if self.pending is not None:
            line, self.pending = self.pending, None
            return line
        while True:
            try:
                line = await self.lines.receive_line(self.max_line)
            except LineError as exc:
                raise ProtocolError(f"connection lost ({exc})") from None
            if line.strip() == BEGIN and not self.begun:
                self.begun = True
                continue
            return line

    async def wait_for_begin(self, seconds: float) -> None:
        """Wait up to ``seconds`` for ``BEGIN``; a server that omits it sends nothing more."""
        with trio.move_on_after(seconds):
            line = await self.read()
            self.pending = line  # not BEGIN: keep it for the next read

    def say(self, text: str) -> None:
        if not self.quiet:
            self.out.line(text)
            self.out.flush()


async def play_remote(
    lines: LineStream, player: Player, *, pie: bool = False, out: Output, quiet: bool = False
) -> ClientResult:
    """Play one game as the client; raises `ProtocolError` if the server misbehaves."""
    session = _Session(lines, out, quiet)
    if (await session.read()).strip() != WELCOME:
        raise ProtocolError("the server did not say WELCOME")
    line = await session.read()
    try:
        info = parse_info(line)
    except BadLine as exc:
        raise ProtocolError(f"bad INFO {safe_text(line)!r}: {exc}") from None
    session.max_line = max_line(info.holes, info.seeds)
    layout = "layout " + " ".join(map(str, info.layout)) if info.layout else "standard layout"
    limit = f"{info.time_ms} ms per turn" if info.time_ms else "no time limit"
    session.say(
        f"{info.holes} holes, {info.seeds} seeds, {limit}, {layout}; "
        f"you move {'first' if info.first else 'second'}"
    )
    me = 0 if info.first else 1
    state = new_game(info.holes, info.seeds, pie=pie, layout=info.layout)
    moves: list[tuple[int, Move]] = []
    await _send(lines, READY)
    first_limit = info.time_ms
    if info.first:
        # Move only after BEGIN, as the protocol says, but cope with a server that omits
        # it: wait a fifth of our limit at most, and take that time off our first turn.
        waited = trio.current_time()
        await session.wait_for_begin(min(BEGIN_WAIT, info.time_ms / 5000) or BEGIN_WAIT)
        if info.time_ms and not session.begun:
            elapsed_ms = int((trio.current_time() - waited) * 1000)
            first_limit = max(1, info.time_ms - elapsed_ms)

    def finish(word: str) -> ClientResult:
        return ClientResult(word, state, me, tuple(moves), info)

    async def until_result(*allowed: str, moves_allowed: bool = False) -> ClientResult:
        while True:
            got = await session.read()
            word = got.strip()
            if word in RESULTS:
                return finish(word)
            if word in allowed:
                continue
            if moves_allowed:
                try:
                    session.say(f"server: {parse_move(got, info.holes)}")
                    continue
                except BadLine:
                    pass
            raise ProtocolError(f"expected a result, got {safe_text(got)!r}")

    while True:
        if state.over:
            return await until_result(OK)
        if state.mover == me:
            move = await player.choose(state, first_limit if not moves else info.time_ms)
            await _send(lines, format_move(move))
            session.say(f"you: {move}")
            reply = (await session.read()).strip()
            if reply in (ILLEGAL, TIME):
                session.say(f"the server says {reply}")
                return await until_result()
            if reply != OK:
                raise ProtocolError(f"expected OK, got {safe_text(reply)!r}")
            try:
                after = play(state, move)
            except IllegalMove as exc:
                raise ProtocolError(f"the server accepted an illegal move ({exc})") from None
            moves.append((me, move))
            state = after
            continue
        line = await session.read()
        try:
            parsed = parse_server_line(line, info.holes)
        except BadLine:
            raise ProtocolError(f"unexpected line {safe_text(line)!r}") from None
        if parsed.word in RESULTS:
            return finish(parsed.word or "")
        if parsed.word == TIME:
            session.say("the server ran out of time")
            return await until_result(ILLEGAL, moves_allowed=True)
        if parsed.word == ILLEGAL:
            return await until_result()
        if parsed.move is None:
            raise ProtocolError(f"unexpected {safe_text(line)!r}")
        move = parsed.move
        rules_state = attrs.evolve(state, pie=True) if move == PIE else state
        try:
            after = play(rules_state, move)
        except IllegalMove as exc:
            session.say(f"the server played an illegal move: {move} ({exc})")
            return await until_result(ILLEGAL)
        moves.append((1 - me, move))
        state = after
        session.say(f"server: {move}")
        await _send(lines, OK)


async def _send(lines: LineStream, line: str) -> None:
    with contextlib.suppress(TransportFailed):  # the next read reports the lost connection
        await lines.send_line(line)


def _split_address(text: str) -> tuple[str, int]:
    host, colon, port = text.rpartition(":")
    if not colon:
        host, port = "localhost", text
    host = host.strip("[]") or "localhost"
    try:
        return host, resolve_port(port)
    except ListenError as exc:
        raise OptionsError(f"--connect needs HOST:PORT ({exc})") from None


async def _connect_and_play(options: PlayOptions, out: Output, err: Output) -> int:
    assert options.connect is not None
    host, port = _split_address(options.connect)
    try:
        stream = await trio.open_tcp_stream(host, port)
    except OSError as exc:
        err.line(f"hub play kalah: can't connect to {host}:{port}: {exc.strerror or exc}")
        err.flush()
        return 1
    lines = LineStream(stream, stream)
    async with stream:
        if options.human:
            async with open_line_input() as keyboard:
                player: Player = HumanPlayer(keyboard, out, ("you", "server"))
                return await _report(lines, player, options, out, err)
        player = AiPlayer(level=options.game.level)
        return await _report(lines, player, options, out, err)


async def _report(
    lines: LineStream, player: Player, options: PlayOptions, out: Output, err: Output
) -> int:
    try:
        result = await play_remote(
            lines, player, pie=options.game.pie, out=out, quiet=options.quiet
        )
    except ProtocolError as exc:
        err.line(f"hub play kalah: {exc}")
        err.flush()
        return 1
    except PlayerQuit:
        err.line("hub play kalah: you left the game")
        err.flush()
        return 1
    state = result.state
    if not options.quiet:
        if options.human:
            names = ("you", "server") if result.seat == 0 else ("server", "you")
            out.line("\n".join(draw_board(state, result.seat, names)))
        mine, theirs = state.store(result.seat), state.store(1 - result.seat)
        out.line(f"result: {result.result} (stores: you {mine}, server {theirs})")
    else:
        out.line(result.result)
    out.flush()
    return 0


async def play_local(
    options: PlayOptions, out: Output, keyboard: LineInput | None = None
) -> GameRecord:
    """A game at the terminal: the local player (person or AI) against --opponent; its record."""
    game = options.game
    setup = setup_game(game, 1)

    def make(human: bool, name: str, other: str) -> Player:
        if human:
            assert keyboard is not None
            return HumanPlayer(keyboard, out, (name, other), name=name)
        return AiPlayer(level=game.level, name=name)

    me_first = setup.first_seat_first
    two_people = options.human and game.opponent == "human"
    mine = "player 1" if two_people else ("you" if options.human else "AI 1")
    theirs = "player 2" if two_people else ("AI" if options.human else "AI 2")
    names = (mine, theirs) if me_first else (theirs, mine)
    players = [make(options.human, mine, theirs), make(game.opponent == "human", theirs, mine)]
    limits = [game.time_ms, game.server_limit_ms]
    if not me_first:
        players.reverse()
        limits.reverse()
    view = GameView(
        out, names, 0 if me_first else 1, not options.human or two_people, options.quiet
    )
    if not options.quiet:
        out.line(f"Kalah: {names[0]} (South, moves first) vs {names[1]} (North)")
        view.draw(setup.state)
        out.flush()
    events = EventBus()
    events.listen(view)
    match = new_match(setup.state, [local_seat(p) for p in players], limits, events=events)
    async with recording(events, options.record, prog="hub play kalah"):
        result = await match.run()
    return result.record


def main(argv: Sequence[str]) -> int:
    out, err = Output(1), Output(2)
    try:
        options = parse_play(argv)
        if options.connect is not None:
            _split_address(options.connect)
    except HelpRequested as exc:
        return show_help(exc)
    except OptionsError as exc:
        err.line(hint(PLAY_PROG, str(exc)))
        err.flush()
        return 2

    async def run() -> int:
        if options.connect is not None:
            return await _connect_and_play(options, out, err)
        people = options.human or options.game.opponent == "human"
        if people:
            async with open_line_input() as keyboard:
                await play_local(options, out, keyboard)
        else:
            await play_local(options, out)
        return 0

    return run_program(run)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
