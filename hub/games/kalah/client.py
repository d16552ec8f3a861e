"""``hub play kalah``: a client for any server of kalah.md, or a local game at the terminal.

`play_remote` speaks the client side of the protocol over a `LineStream`: ``WELCOME``,
``INFO`` (the client's seat, limit and layout), ``READY``, an optional ``BEGIN``, then moves
and acknowledgements until a result. It validates the server's moves with our referee and
acknowledges only legal ones; a ``P`` from the server at the one moment it is allowed is
accepted even without ``--pie`` (the server knows its rules), but our client plays ``P``
only with ``--pie``. Its own time starts when it sends its ``OK`` (or receives ``BEGIN``,
or sends ``READY`` when the server omits ``BEGIN`` and we move first).

A local game at the terminal (`play_local`) is refereed by the core match loop like any
other (`hub.games.kalah.seats.new_match`, two local seats); what the terminal shows is a
`BoardPrinter` listening to its events.

While a player thinks, the connection is still read (`_Session.race`): a server that goes
away is noticed at once (`ServerGone`), and a ``TIME`` or a result that comes meanwhile
stops the player. Once the game has begun no read waits longer than `server_wait` (twice the
limit plus `GRACE`): a silent server is `ServerTooSlow`. A person's lines come through
`open_keyboard`, which on a terminal drops what was typed before each turn.

Exit statuses (`EXIT_*`): 0 when a remote game ended with a result (won, lost or tied: the
result is printed, in words unless ``--quiet``) and whenever a local game ended (a person who
quits a local game loses it by resignation, which is a result too); 1 when the connection
failed, the server broke the protocol, or the person left a remote game; 2 for bad
arguments; 3 when the server went away (EOF or reset) before the result; 4 when the server
was silent for too long; 130 for Ctrl-C.
"""

from __future__ import annotations

import contextlib
import math
import sys
from collections.abc import Awaitable, Callable, Sequence
from functools import partial

import attrs
import trio

from hub.core.bus import EventBus
from hub.core.clock import TimeControl
from hub.core.events import GameRecord
from hub.core.lines import (
    DEFAULT_MAX_LINE,
    LineError,
    LineStream,
    LineTooLong,
    TransportFailed,
)
from hub.core.listen import ListenError, resolve_port
from hub.core.local_seats import Keys, PersonSeat, ask, open_keyboard, seconds_text
from hub.core.match import SeatFailure
from hub.core.output import Output
from hub.core.referee import IllegalMove
from hub.core.running import run_program
from hub.core.usage import HelpRequested, hint, show_help
from hub.games.kalah.console import draw_board
from hub.games.kalah.options import (
    DEFAULT_GRACE_MS,
    PLAY_PROG,
    OptionsError,
    PlayOptions,
    parse_play,
)
from hub.games.kalah.players import ai_seat, person_seat, time_warning
from hub.games.kalah.printer import Ending, GameView, remote_result_line, verb
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
from hub.games.kalah.seats import KalahSeat, new_match
from hub.games.kalah.server import setup_game
from hub.records.recording import recording

BEGIN_WAIT = 1.0
"""Seconds a client moving first waits for ``BEGIN`` before it moves without it."""

OPPONENT = "opponent"
"""How the client names the other side: the server's AI, a person at the server or another
client (``--opponent client``), which the protocol does not tell apart."""

REMOTE_ADVICE = "the server sets it (hub serve kalah --time-ms)"
LOCAL_ADVICE = "give a longer --time-ms, or 0 for no limit"
"""The end of the warning to a person whose time per turn is too short (`time_warning`)."""

GRACE = DEFAULT_GRACE_MS / 1000
"""Seconds past twice the time limit the server gets before our client gives up on it
(``--grace-ms``)."""

LATE_MOVE_WAIT = 5.0
"""Seconds a slow server may still take, after its ``TIME``, to send its late move (ours
sends it within `hub.games.kalah.players.LATE_GRACE`)."""

EXIT_RESULT, EXIT_FAILED, EXIT_USAGE, EXIT_GONE, EXIT_TOO_SLOW = 0, 1, 2, 3, 4
"""Exit statuses of ``hub play kalah`` (docs/kalah.md): a result; no connection, a broken
protocol or a person who left a remote game; bad arguments; the server has gone away; the
server is too slow. Ctrl-C is 130 (`hub.core.running.INTERRUPTED`)."""


class ProtocolError(Exception):
    """The server sent something the protocol does not allow here (or went away)."""


class ServerGone(ProtocolError):
    """The connection ended (EOF) or broke (reset) before the game's result."""


class ServerTooSlow(ProtocolError):
    """The server said nothing for longer than it may."""


@attrs.frozen
class ClientResult:
    result: str
    """WINNER, LOSER or TIE from our point of view."""
    state: KalahState
    seat: int
    moves: tuple[tuple[int, Move], ...]
    info: Info
    ending: Ending = Ending.RULES
    """What led to the result (for the words a person reads)."""


def server_wait(time_ms: int, grace: float = GRACE) -> float:
    """How long our client waits for any line from the server once the game has begun:
    twice the limit (a paired opponent has the limit for its ``OK`` and again for its move)
    plus ``grace``; no limit (``inf``) when the game has none."""
    return 2 * time_ms / 1000 + grace if time_ms else math.inf


@attrs.define(eq=False)
class _Session:
    lines: LineStream
    out: Output
    quiet: bool
    max_line: int = DEFAULT_MAX_LINE
    """The longest line to accept: the game's `max_line` once ``INFO`` has come."""
    begun: bool = False
    pending: str | None = None

    async def read(self, wait: float = math.inf) -> str:
        """The next line that is not a ``BEGIN`` (noting that one came), within ``wait``
        seconds (`ServerTooSlow`); `ServerGone` if the connection ends or breaks."""
        if self.pending is not None:
            line, self.pending = self.pending, None
            return line
        with trio.move_on_after(wait):
            while True:
                line = await self._receive()
                if not self._is_first_begin(line):
                    return line
        raise ServerTooSlow(f"the server is too slow: nothing from it for {wait:g} s")

    async def _receive(self) -> str:
        """The next line, whatever it is; `ProtocolError` or `ServerGone` as in `read`."""
        try:
            return await self.lines.receive_line(self.max_line)
        except LineTooLong as exc:
            raise ProtocolError(f"the server sent a {exc}") from None
        except LineError as exc:
            raise ServerGone(f"the server has gone away ({exc})") from None

    def _is_first_begin(self, line: str) -> bool:
        """Whether ``line`` is the game's ``BEGIN`` (noted, so that a second one is not)."""
        if line.strip() == BEGIN and not self.begun:
            self.begun = True
            return True
        return False

    async def wait_for_begin(self, seconds: float) -> None:
        """Wait up to ``seconds`` for ``BEGIN``, and no longer than it takes to come: the
        wait ends with the first line, which is kept for the next read unless it is
        ``BEGIN`` (a server that omits ``BEGIN`` sends nothing more before our move)."""
        with trio.move_on_after(seconds):
            line = await self._receive()
            if not self._is_first_begin(line):
                self.pending = line

    async def race(self, choose: Callable[[], Awaitable[Move]]) -> Move | None:
        """The player's move, while the connection is watched: None, with the player
        stopped, if the server spoke first (its line is `pending`, to be read next);
        `ServerGone` at once if the connection ends meanwhile."""
        if self.pending is not None:
            return None
        move: Move | None = None
        failure: ProtocolError | SeatFailure | None = None

        async def watch(cancel: trio.CancelScope) -> None:
            nonlocal failure
            try:
                self.pending = await self.read()
            except ProtocolError as exc:
                failure = exc
            cancel.cancel()

        async def play(cancel: trio.CancelScope) -> None:
            nonlocal move, failure
            try:
                move = await choose()
            except SeatFailure as exc:  # the person left, the script is over
                failure = exc
            cancel.cancel()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(watch, nursery.cancel_scope)
            nursery.start_soon(play, nursery.cancel_scope)
        if self.pending is not None:
            return None  # the server's word comes first (a TIME beats a late move)
        if failure is not None:
            raise failure
        return move

    def say(self, text: str) -> None:
        if not self.quiet:
            self.out.line(text)
            self.out.flush()


async def play_remote(
    lines: LineStream,
    player: KalahSeat,
    *,
    pie: bool = False,
    out: Output,
    quiet: bool = False,
    grace: float = GRACE,
    name: str = "you",
    person: bool = False,
) -> ClientResult:
    """Play one game as the client; raises `ProtocolError` if the server misbehaves
    (`ServerGone` if it goes away, `ServerTooSlow` if it is silent for too long). ``name``
    names our side in what is printed (``you``, ``AI``), the other side is `OPPONENT`; a
    ``person`` is warned before the game when the time limit is too short to type a move."""
    session = _Session(lines, out, quiet)
    # Before INFO there is no limit to go by, and a server may rightly keep us waiting
    # (for a partner, or for its person to finish a game): only its going away ends that.
    if (await session.read()).strip() != WELCOME:
        raise ProtocolError("the server did not say WELCOME")
    line = await session.read()
    try:
        info = parse_info(line)
    except BadLine as exc:
        raise ProtocolError(f"bad INFO {safe_text(line)!r}: {exc}") from None
    session.max_line = max_line(info.holes, info.seeds)
    layout = "layout " + " ".join(map(str, info.layout)) if info.layout else "standard layout"
    limit = f"{seconds_text(info.time_ms)} per turn" if info.time_ms else "no time limit"
    session.say(
        f"{info.holes} holes, {info.seeds} seeds, {limit}, {layout}; "
        f"{verb(name, 'move')} {'first' if info.first else 'second'}"
    )
    warning = time_warning(info.time_ms, REMOTE_ADVICE) if person else None
    if warning is not None:
        session.say(warning)
    me = 0 if info.first else 1
    state = new_game(info.holes, info.seeds, pie=pie, layout=info.layout)
    moves: list[tuple[int, Move]] = []
    wait = server_wait(info.time_ms, grace)
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

    def finish(word: str, ending: Ending) -> ClientResult:
        if ending is Ending.RULES and not state.over:
            ending = Ending.SERVER_ENDED
        return ClientResult(word, state, me, tuple(moves), info, ending)

    async def until_result(
        ending: Ending, *allowed: str, moves_allowed: bool = False, longer: float = 0.0
    ) -> ClientResult:
        while True:
            got = await session.read(wait + longer)
            word = got.strip()
            if word in RESULTS:
                return finish(word, ending)
            if word in allowed:
                continue
            if moves_allowed:
                try:
                    late = parse_move(got, info.holes)
                    session.say(f"{OPPONENT}: {late} (too late)")
                    continue
                except BadLine:
                    pass
            raise ProtocolError(f"expected a result, got {safe_text(got)!r}")

    while True:
        if state.over:
            return await until_result(Ending.RULES, OK)
        if state.mover == me:
            turn_limit = first_limit if not moves else info.time_ms
            control = TimeControl.per_move_ms(turn_limit)
            move = await session.race(partial(ask, player, state, control, index=me))
            if move is None:  # the server spoke first: it can only be ending the game
                said = (await session.read()).strip()
                if said in RESULTS:
                    return finish(said, Ending.SERVER_ENDED)
                if said == TIME:
                    return await until_result(Ending.LATE)
                raise ProtocolError(f"unexpected {safe_text(said)!r} while we were to move")
            await _send(lines, format_move(move))
            session.say(f"{name} swapped sides (pie rule)" if move == PIE else f"{name}: {move}")
            reply = (await session.read(wait)).strip()
            if reply in RESULTS:
                return finish(reply, Ending.SERVER_ENDED)
            if reply in (ILLEGAL, TIME):
                return await until_result(Ending.LATE if reply == TIME else Ending.REFUSED)
            if reply != OK:
                raise ProtocolError(f"expected OK, got {safe_text(reply)!r}")
            try:
                after = play(state, move)
            except IllegalMove as exc:
                raise ProtocolError(f"the server accepted an illegal move ({exc})") from None
            moves.append((me, move))
            state = after
            continue
        line = await session.read(wait)
        try:
            parsed = parse_server_line(line, info.holes)
        except BadLine:
            raise ProtocolError(f"unexpected line {safe_text(line)!r}") from None
        if parsed.word in RESULTS:
            return finish(parsed.word or "", Ending.SERVER_ENDED)
        if parsed.word == TIME:
            session.say(f"the {OPPONENT} ran out of time")
            return await until_result(
                Ending.SERVER_LATE, ILLEGAL, moves_allowed=True, longer=LATE_MOVE_WAIT
            )
        if parsed.word == ILLEGAL:
            return await until_result(Ending.SERVER_ILLEGAL)
        if parsed.move is None:
            raise ProtocolError(f"unexpected {safe_text(line)!r}")
        move = parsed.move
        rules_state = attrs.evolve(state, pie=True) if move == PIE else state
        try:
            after = play(rules_state, move)
        except IllegalMove as exc:
            session.say(f"the {OPPONENT} played an illegal move: {move} ({exc})")
            return await until_result(Ending.SERVER_ILLEGAL, ILLEGAL)
        moves.append((1 - me, move))
        state = after
        if move == PIE:
            session.say(f"the {OPPONENT} swapped sides (pie rule)")
        else:
            session.say(f"{OPPONENT}: {move}")
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
        return EXIT_FAILED
    lines = LineStream(stream, stream)
    async with stream:
        if options.human:
            async with open_keyboard() as keyboard:
                human = person_seat(keyboard, out, ("you", OPPONENT))
                return await _report(lines, human, options, out, err)
        return await _report(lines, ai_seat(options.game.level), options, out, err)


async def _report(
    lines: LineStream, player: KalahSeat, options: PlayOptions, out: Output, err: Output
) -> int:
    try:
        result = await play_remote(
            lines,
            player,
            pie=options.game.settings.pie,
            out=out,
            quiet=options.quiet,
            grace=options.grace_ms / 1000,
            name="you" if options.human else "AI",
            person=options.human,
        )
    except ServerGone:
        return _fail(err, "the server has gone away", EXIT_GONE)
    except ServerTooSlow as exc:
        return _fail(err, str(exc), EXIT_TOO_SLOW)
    except ProtocolError as exc:
        return _fail(err, str(exc), EXIT_FAILED)
    except SeatFailure:  # the person quit (or a script is over)
        return _fail(err, "you left the game", EXIT_FAILED)
    state = result.state
    if options.quiet:
        out.line(result.result)
    else:
        me = "you" if options.human else "AI"
        if options.human:
            names = (me, OPPONENT) if result.seat == 0 else (OPPONENT, me)
            out.line("\n".join(draw_board(state, result.seat, names)))
        stores = (state.store(result.seat), state.store(1 - result.seat))
        out.line(remote_result_line(result.result, result.ending, (me, OPPONENT), stores))
    out.flush()
    return EXIT_RESULT


def _fail(err: Output, message: str, status: int) -> int:
    err.line(f"hub play kalah: {message}")
    err.flush()
    return status


async def play_local(options: PlayOptions, out: Output, keyboard: Keys | None = None) -> GameRecord:
    """A game at the terminal: the local player (person or AI) against --opponent; its record."""
    game = options.game
    setup = setup_game(game, 1)

    def make(human: bool, name: str, other: str) -> KalahSeat:
        if human:
            assert keyboard is not None
            return person_seat(keyboard, out, (name, other), name=name)
        return ai_seat(game.level, name=name)

    me_first = setup.first_seat_first
    two_people = options.human and game.opponent == "human"
    mine = "player 1" if two_people else ("you" if options.human else "AI 1")
    theirs = "player 2" if two_people else ("AI" if options.human else "AI 2")
    names = (mine, theirs) if me_first else (theirs, mine)
    players = [make(options.human, mine, theirs), make(game.opponent == "human", theirs, mine)]
    limits = [game.settings.time_ms, game.server_limit_ms]
    if not me_first:
        players.reverse()
        limits.reverse()
    # A person sees the board at each of their turns (`person_seat`), so the view draws
    # boards only for a game of AIs: the opening board too, else it came out twice.
    no_person = not options.human and game.opponent != "human"
    view = GameView(out, names, 0 if me_first else 1, no_person, options.quiet)
    if not options.quiet:
        out.line(f"Kalah: {names[0]} (South, moves first) vs {names[1]} (North)")
        people = [
            limit
            for player, limit in zip(players, limits, strict=True)
            if limit and isinstance(player, PersonSeat)
        ]
        warning = time_warning(min(people), LOCAL_ADVICE) if people else None
        if warning is not None:
            out.line(warning)
        if not isinstance(players[0], PersonSeat):
            view.draw(setup.state)
        out.flush()
    events = EventBus()
    events.listen(view)
    match = new_match(setup.game, setup.state, players, limits, events=events)
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
        return EXIT_USAGE

    async def run() -> int:
        if options.connect is not None:
            return await _connect_and_play(options, out, err)
        people = options.human or options.game.opponent == "human"
        if people:
            async with open_keyboard() as keyboard:
                await play_local(options, out, keyboard)
        else:
            await play_local(options, out)
        return 0

    return run_program(run)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
