"""``hub play kalah --connect``: a client for any server of kalah.md.

`play_remote` speaks the client side of the protocol over a `LineStream`: ``WELCOME``,
``INFO`` (the client's seat, limit and layout), ``READY``, an optional ``BEGIN``, then moves
and acknowledgements until a result. It validates the server's moves with our referee and
acknowledges only legal ones; a ``P`` from the server at the one moment it is allowed is
accepted even without ``--pie`` (the server knows its rules), but our client plays ``P``
only with ``--pie``. Its own time starts when it sends its ``OK`` (or receives ``BEGIN``,
or sends ``READY`` when the server omits ``BEGIN`` and we move first). The handshake is
`_handshake`; the game after it a `_RemoteGame`, one method for our turn and one for the
server's. `connect_and_play` is the program's side (the connection, the printed result,
the exit status); the command itself is `hub.games.kalah.play`, and a local game at the
terminal `hub.games.kalah.local`.

While a player thinks, the connection is still read (`_ClientConnection.race`): a server that goes
away is noticed at once (`ServerGone`), and a ``TIME`` or a result that comes meanwhile
stops the player. Once the game has begun no read waits longer than `server_wait` (twice the
limit plus `GRACE`): a silent server is `ServerTooSlow`. A person's lines come through
`open_keyboard`, which on a terminal drops what was typed before each turn.

Exit statuses (`EXIT_*`, those of ``hub play kalah``): 0 when a remote game ended with a
result (won, lost or tied: the result is printed, in words unless ``--quiet``) and whenever
a local game ended (a person who quits a local game loses it by resignation, which is a
result too); 1 when the connection
failed, the server broke the protocol, or the person left a remote game; 2 for bad
arguments; 3 when the server went away (EOF or reset) before the result; 4 when the server
was silent for too long; 130 for Ctrl-C.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Awaitable, Callable
from functools import partial

import attrs
import trio

from hub.core.io.lines import (
    DEFAULT_MAX_LINE,
    LineError,
    LineStream,
    LineTooLong,
    TransportFailed,
)
from hub.core.io.listen import ListenError, resolve_port
from hub.core.io.output import Output
from hub.core.model.clock import TimeControl
from hub.core.model.referee import IllegalMove
from hub.core.play.fed import ask
from hub.core.play.person import open_keyboard, seconds_text
from hub.core.play.vocabulary import SeatFailure
from hub.games.kalah.console import draw_board
from hub.games.kalah.options import (
    DEFAULT_GRACE_MS,
    OptionsError,
    PlayOptions,
)
from hub.games.kalah.players import ai_seat, person_seat, time_warning
from hub.games.kalah.printer import ResultCause, remote_result_line, verb
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
from hub.games.kalah.seats import KalahSeat

BEGIN_WAIT = 1.0
"""Seconds a client moving first waits for ``BEGIN`` before it moves without it."""

OPPONENT = "opponent"
"""How the client names the other side: the server's AI, a person at the server or another
client (``--opponent client``), which the protocol does not tell apart."""

REMOTE_ADVICE = "the server sets it (hub serve kalah --time-ms)"
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
server is too slow. Ctrl-C is 130 (`hub.core.commands.running.INTERRUPTED`)."""


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
    ending: ResultCause = ResultCause.RULES
    """What led to the result (for the words a person reads)."""


def server_wait(time_ms: int, grace: float = GRACE) -> float:
    """How long our client waits for any line from the server once the game has begun:
    twice the limit (a paired opponent has the limit for its ``OK`` and again for its move)
    plus ``grace``; no limit (``inf``) when the game has none."""
    return 2 * time_ms / 1000 + grace if time_ms else math.inf


@attrs.define(eq=False)
class _ClientConnection:
    """Our client's side of the connection: the server's lines, what we print, whether
    ``BEGIN`` came, and a line read early and kept for the next read."""

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
    session = _ClientConnection(lines, out, quiet)
    info = await _handshake(session, name=name, person=person)
    game = _RemoteGame(
        session,
        player,
        info,
        name,
        state=new_game(info.holes, info.seeds, pie=pie, layout=info.layout),
        me=0 if info.first else 1,
        wait=server_wait(info.time_ms, grace),
        first_limit=info.time_ms,
    )
    await _send(lines, READY)
    if info.first:
        await game.wait_for_begin()
    return await game.play()


async def _handshake(session: _ClientConnection, *, name: str, person: bool) -> Info:
    """``WELCOME`` and ``INFO`` (said in words unless quiet); `ProtocolError` otherwise."""
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
    return info


@attrs.define(eq=False)
class _RemoteGame:
    """One game after ``READY``: our turns (`_our_turn`) and the server's (`_their_turn`)
    until a result, the state kept by our rules (`hub.games.kalah.rules.play`)."""

    session: _ClientConnection
    player: KalahSeat
    info: Info
    name: str
    state: KalahState
    me: int
    wait: float
    """`server_wait`: the longest silence allowed once the game has begun."""
    first_limit: int
    """Our first turn's limit (less the wait for a ``BEGIN`` that did not come)."""
    moves: list[tuple[int, Move]] = attrs.Factory(list)

    async def wait_for_begin(self) -> None:
        """Move only after ``BEGIN``, as the protocol says, but cope with a server that
        omits it: wait a fifth of our limit at most, and take that time off our first turn."""
        time_ms = self.info.time_ms
        waited = trio.current_time()
        await self.session.wait_for_begin(min(BEGIN_WAIT, time_ms / 5000) or BEGIN_WAIT)
        if time_ms and not self.session.begun:
            elapsed_ms = int((trio.current_time() - waited) * 1000)
            self.first_limit = max(1, time_ms - elapsed_ms)

    async def play(self) -> ClientResult:
        while True:
            if self.state.over:
                return await self._until_result(ResultCause.RULES, OK)
            if self.state.mover == self.me:
                result = await self._our_turn()
            else:
                result = await self._their_turn()
            if result is not None:
                return result

    def _finish(self, word: str, ending: ResultCause) -> ClientResult:
        if ending is ResultCause.RULES and not self.state.over:
            ending = ResultCause.SERVER_ENDED
        return ClientResult(word, self.state, self.me, tuple(self.moves), self.info, ending)

    async def _until_result(
        self, ending: ResultCause, *allowed: str, moves_allowed: bool = False, longer: float = 0.0
    ) -> ClientResult:
        while True:
            got = await self.session.read(self.wait + longer)
            word = got.strip()
            if word in RESULTS:
                return self._finish(word, ending)
            if word in allowed:
                continue
            if moves_allowed:
                try:
                    late = parse_move(got, self.info.holes)
                    self.session.say(f"{OPPONENT}: {late} (too late)")
                    continue
                except BadLine:
                    pass
            raise ProtocolError(f"expected a result, got {safe_text(got)!r}")

    async def _our_turn(self) -> ClientResult | None:
        """Our move, sent and acknowledged (None), or the result that came instead."""
        session, state, name = self.session, self.state, self.name
        limit = self.info.time_ms if self.moves else self.first_limit
        control = TimeControl.per_move_ms(limit)
        move = await session.race(partial(ask, self.player, state, control, index=self.me))
        if move is None:  # the server spoke first: it can only be ending the game
            said = (await session.read()).strip()
            if said in RESULTS:
                return self._finish(said, ResultCause.SERVER_ENDED)
            if said == TIME:
                return await self._until_result(ResultCause.LATE)
            raise ProtocolError(f"unexpected {safe_text(said)!r} while we were to move")
        await _send(session.lines, format_move(move))
        session.say(f"{name} swapped sides (pie rule)" if move == PIE else f"{name}: {move}")
        reply = (await session.read(self.wait)).strip()
        if reply in RESULTS:
            return self._finish(reply, ResultCause.SERVER_ENDED)
        if reply in (ILLEGAL, TIME):
            return await self._until_result(
                ResultCause.LATE if reply == TIME else ResultCause.REFUSED
            )
        if reply != OK:
            raise ProtocolError(f"expected OK, got {safe_text(reply)!r}")
        try:
            after = play(state, move)
        except IllegalMove as exc:
            raise ProtocolError(f"the server accepted an illegal move ({exc})") from None
        self.moves.append((self.me, move))
        self.state = after
        return None

    async def _their_turn(self) -> ClientResult | None:
        """The server's move, checked by our rules and acknowledged (None), or the result."""
        session = self.session
        line = await session.read(self.wait)
        try:
            parsed = parse_server_line(line, self.info.holes)
        except BadLine:
            raise ProtocolError(f"unexpected line {safe_text(line)!r}") from None
        if parsed.word in RESULTS:
            return self._finish(parsed.word or "", ResultCause.SERVER_ENDED)
        if parsed.word == TIME:
            session.say(f"the {OPPONENT} ran out of time")
            return await self._until_result(
                ResultCause.SERVER_LATE, ILLEGAL, moves_allowed=True, longer=LATE_MOVE_WAIT
            )
        if parsed.word == ILLEGAL:
            return await self._until_result(ResultCause.SERVER_ILLEGAL)
        if parsed.move is None:
            raise ProtocolError(f"unexpected {safe_text(line)!r}")
        move = parsed.move
        # a P at the one moment it is allowed is accepted even without --pie: the server
        # knows its rules
        rules_state = attrs.evolve(self.state, pie=True) if move == PIE else self.state
        try:
            after = play(rules_state, move)
        except IllegalMove as exc:
            session.say(f"the {OPPONENT} played an illegal move: {move} ({exc})")
            return await self._until_result(ResultCause.SERVER_ILLEGAL, ILLEGAL)
        self.moves.append((1 - self.me, move))
        self.state = after
        if move == PIE:
            session.say(f"the {OPPONENT} swapped sides (pie rule)")
        else:
            session.say(f"{OPPONENT}: {move}")
        await _send(session.lines, OK)
        return None


async def _send(lines: LineStream, line: str) -> None:
    with contextlib.suppress(TransportFailed):  # the next read reports the lost connection
        await lines.send_line(line)


def split_address(text: str) -> tuple[str, int]:
    host, colon, port = text.rpartition(":")
    if not colon:
        host, port = "localhost", text
    host = host.strip("[]") or "localhost"
    try:
        return host, resolve_port(port)
    except ListenError as exc:
        raise OptionsError(f"--connect needs HOST:PORT ({exc})") from None


async def connect_and_play(options: PlayOptions, out: Output, err: Output) -> int:
    """``hub play kalah --connect HOST:PORT``: one game as a client; the exit status."""
    assert options.connect is not None
    host, port = split_address(options.connect)
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
