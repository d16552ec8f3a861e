"""Seat specs, the same for every declared game and every verb, and the seats they make.

=================  ===========================================================================
``ai`` ``ai:N``    the game's built-in AI at level N (default: its middle level); for a game
                   without one, the general game player (``mcts:N``)
``mcts:N``         the general game player (hub.core.play.mcts) at level N, for every game
``random``         a random legal move (``random:SEED`` to fix its choices)
``human``          a person at this terminal (told the legal moves after a bad one)
``web``            a person in a browser (``--web PORT``; the seat's page is printed)
``tcp``            the next client on ``--port`` speaking the JSON bot protocol
anything else      a program over pipes speaking the JSON bot protocol: a path or a name on
                   PATH, with its arguments (``"./bot.py --depth 3"``); a ``.py`` file that is
                   not executable runs under this Python
=================  ===========================================================================

`parse_seat` checks a spec without starting anything (a typo is a usage error before any
game); `SeatMaker` makes the seats of one game and owns what they started (children are
reaped, connections closed, when its block ends).
"""

from __future__ import annotations

import contextlib
import math
import os
import random
import shlex
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, Generic, TypeVar

import attrs
import trio

from hub.core.io.lines import LineError, LineStream
from hub.core.io.process import ChildProcess, SpawnFailed, stop_all
from hub.core.io.programs import program_problem, resolve_program
from hub.core.model.identity import ai_identity, program_identity, random_identity, remote_identity
from hub.core.model.referee import Termination
from hub.core.model.values import PlayerInfo
from hub.core.play import mcts
from hub.core.play.game import Game, SeatKind
from hub.core.play.jsonbot import MAX_LINE, BadHello, Hello, JsonCodec, parse_hello, welcome_line
from hub.core.play.seats import LineSeat, SeatCodec
from hub.core.play.threads import ProcessSeat, StopFlag, ThreadSeat, TurnTime
from hub.core.play.vocabulary import (
    BaseSeat,
    FailedSeat,
    LaunchedSeat,
    Seat,
    SeatFailure,
    Start,
    Turn,
)

S = TypeVar("S")
M = TypeVar("M")
HELLO_SECONDS = 10.0
"""How long a program or client has to answer the welcome (a program's start-up included)."""
STOP_GRACE = 2.0
KINDS = ("ai", "random", "human", "web", "tcp", "program")
JSON_KIND = "json"
"""``json:PROGRAM``: a program speaking the JSON bot protocol, in a game whose bare program
specs speak another (`hub.core.play.game.Programs.program_kind`)."""


class SeatSpecError(ValueError):
    """A seat spec that names no player of this game; the message says why."""


@attrs.frozen
class SeatSpec:
    """A parsed seat spec: its kind, what was typed, and the kind's parameters."""

    kind: str
    text: str
    level: int | None = None
    seed: int | None = None
    argv: tuple[str, ...] = ()


def parse_seat(text: str, game: type[Game[Any, Any]]) -> SeatSpec:
    """The `SeatSpec` that ``text`` names for ``game``; raises `SeatSpecError`."""
    word, colon, arg = text.strip().partition(":")
    if word == JSON_KIND and colon:  # json:PROGRAM, for a game whose programs speak another
        if not arg.strip():
            raise SeatSpecError(f"{text!r}: no program after json: (json:./players/json_bot.py)")
        wrong = f"{text!r} is not a program: json: names a program speaking the JSON bot protocol"
        try:
            bot = parse_seat(arg, game)
        except SeatSpecError as exc:
            raise SeatSpecError(f"{wrong} ({exc})") from None
        if bot.kind != "program":
            raise SeatSpecError(wrong)
        return attrs.evolve(bot, text=text)
    if word in game.programs.kinds:
        if not arg.strip():
            raise SeatSpecError(f"{text!r}: say what to run ({word}:COMMAND)")
        try:
            return SeatSpec(word, text, argv=tuple(shlex.split(arg)))
        except ValueError as exc:
            raise SeatSpecError(f"{text!r}: {exc}") from None
    if word in ("ai", "mcts"):
        ai = None if word == "mcts" else game.ai
        general = ai is None  # ``mcts``, or ``ai`` of a game without an AI of its own
        if ai is None and game.hidden is not None and not samples(game):
            raise SeatSpecError(mcts.refuse_hidden(game.name))
        levels = mcts.LEVELS if ai is None else ai.levels
        if not colon:
            return SeatSpec("ai", text, level=mcts.DEFAULT_LEVEL if ai is None else ai.level())
        if not arg.isdigit() or int(arg) not in levels:
            which = "the general player's levels" if general else "the AI levels"
            raise SeatSpecError(
                f"{text!r}: {which} of {game.name} are {word}:{levels[0]} to {word}:{levels[-1]}"
            )
        return SeatSpec("ai", text, level=int(arg))
    if word == "random":
        if colon and not arg.isdigit():
            raise SeatSpecError(f"{text!r}: the seed must be a whole number (random:7)")
        return SeatSpec("random", text, seed=int(arg) if colon else None)
    if text in ("human", "web", "tcp"):
        return SeatSpec(text, text)
    try:
        argv = shlex.split(text)
    except ValueError as exc:
        raise SeatSpecError(f"{text!r}: {exc}") from None
    if not argv:
        raise SeatSpecError("an empty seat spec")
    program = argv[0]
    if program.endswith(".py") and os.path.isfile(program) and not os.access(program, os.X_OK):
        return SeatSpec("program", text, argv=(sys.executable, *argv))
    found = resolve_program(program)
    if found is None:
        kinds = "ai:N, random, human, web, tcp, or a program"
        raise SeatSpecError(f"{program_problem(program)}; a seat is {kinds}")
    return SeatSpec("program", text, argv=(found, *argv[1:]))


def short_name(spec: SeatSpec) -> str:
    """A player's display name before it says its own: ``ai:4``, ``bot.py``."""
    if spec.kind == "program":
        program = spec.argv[1] if spec.argv[0] == sys.executable else spec.argv[0]
        return os.path.basename(program)
    return spec.text


class RandomSeat(BaseSeat[Any, Any]):
    """A random legal move from a seeded generator."""

    def __init__(self, game: Game[Any, Any], rng: random.Random, player: PlayerInfo) -> None:
        self.game = game
        self.rng = rng
        self.player = player

    async def choose(self, turn: Turn[Any]) -> Any:
        await trio.lowlevel.checkpoint()
        return self.rng.choice(list(self.game.legal_moves(turn.state)))


def samples(game: type[Game[Any, Any]]) -> bool:
    """Whether the game's `hub.core.play.game.Search` facet samples what a seat cannot see."""
    return game.search is not None and game.search.sample is not None


def ai_levels(game: type[Game[Any, Any]]) -> range:
    """The levels ``ai:N`` offers: the game's own AI's, else the general player's (none for
    a game that hides something and offers no sampler)."""
    if game.ai is not None:
        return game.ai.levels
    if game.hidden is not None and not samples(game):
        return range(0)
    return mcts.LEVELS


def is_general(spec: SeatSpec, game: type[Game[Any, Any]]) -> bool:
    """``mcts:N``, or ``ai:N`` of a game without an AI of its own: the general player."""
    return spec.kind == "ai" and (spec.text.strip().startswith("mcts") or game.ai is None)


def general_seat(game: Game[Any, Any], spec: SeatSpec, seed: int) -> ThreadSeat[Any, Any]:
    """The general game player (`hub.core.play.mcts`) at ``spec``'s level, budgeting from its
    clock, its choices drawn from ``seed``; for a game with hidden information (its
    `hub.core.play.game.Search` samples what a seat cannot see) it is given only the view of
    the seat to move, and that seat."""
    level, search, rng = spec.level or mcts.DEFAULT_LEVEL, game.search, random.Random(seed)
    hidden = samples(type(game))

    def think(state: Any, time: TurnTime, stop: StopFlag) -> Any:
        seconds = time.budget()  # from both clocks, less what starting the thread took
        seat = game.to_move(state)
        assert seat is not None
        seen = game.view(state, seat) if hidden else state
        return mcts.general_move(game, seen, seat, level, seconds, stop, search=search, rng=rng)

    word = spec.text.strip().partition(":")[0]
    player = PlayerInfo(f"{word}:{level}", "ai", spec.text, f"{game.name}/mcts:{level}")
    return ProcessSeat(think, player, fallback=any_move(game))


def any_move(game: Game[Any, Any]) -> Callable[[Any], Any]:
    """A seat's answer at its hard stop when its search offered nothing: the first legal
    move (at once; the seat is the mover, so its legal moves are its own to know)."""

    def first(state: Any) -> Any:
        return next(iter(game.legal_moves(state)))

    return first


def ai_seat(
    game: Game[Any, Any], level: int, seat: int, *, threaded: bool = True
) -> ThreadSeat[Any, Any]:
    """The game's built-in AI (`hub.core.play.game.Ai`) at ``level`` in seat number ``seat``:
    given the state, or, for a game that hides something, only its seat's view, and the
    seconds to spend (`seconds`); behind it the seat's hard stop (`any_move`)."""
    ai = game.ai
    assert ai is not None  # `is_general` sends ``ai`` of a game without one to `general_seat`
    move = ai.move
    if ai.prepare is not None:
        ai.prepare()
    if game.hidden is None:

        def think(state: Any, time: TurnTime, stop: StopFlag) -> Any:
            return move(game, state, level, seconds(time), stop)
    else:
        view = game.view

        def think(state: Any, time: TurnTime, stop: StopFlag) -> Any:
            return move(game, view(state, seat), level, seconds(time), stop)

    player = PlayerInfo(f"ai:{level}", "ai", f"ai:{level}", ai_identity(game.name, level))
    return ProcessSeat(think, player, threaded=threaded, fallback=any_move(game))


def seconds(time: TurnTime) -> float:
    """What a game's `hub.core.play.game.Ai` is told to spend: `TurnTime.budget` (``inf``: no
    limit)."""
    budget = time.budget()
    return math.inf if budget is None else budget


async def handshake(lines: LineStream, game: str, *, welcome: bool = True) -> Hello:
    """Send the welcome (unless ``welcome`` is false: a TCP client's next game, whose hello
    follows an ``end`` unasked) and read the hello within `HELLO_SECONDS`; raises
    `BadHello` (or `LineError` if the peer goes away)."""
    if welcome:
        await lines.send_line(welcome_line(game))
    with trio.move_on_after(HELLO_SECONDS):
        return parse_hello(await lines.receive_line(MAX_LINE))
    raise BadHello(f"no hello within {HELLO_SECONDS:g} s")


async def bot_seat(
    game: Game[Any, Any], lines: LineStream, name: str, kind: str, spec: str, identity: str = ""
) -> Seat[Any, Any]:
    """A bot's seat after its handshake; a failed handshake is a `FailedSeat`, so that the
    game still ends through the loop, with a record saying who failed and how. A program's
    ``identity`` is its path and content; a network client's is the name it gives."""
    try:
        hello = await handshake(lines, game.name)
    except BadHello as exc:
        player = PlayerInfo(name, kind, spec, identity)
        return FailedSeat(player, Termination.MALFORMED, str(exc) + own_kind_hint(game, kind, spec))
    except LineError as exc:
        player = PlayerInfo(name, kind, spec, identity)
        return FailedSeat(
            player, Termination.DISCONNECT, str(exc) + own_kind_hint(game, kind, spec)
        )
    who = identity or remote_identity(hello.name)
    return LineSeat(lines, JsonCodec(game), PlayerInfo(hello.name, kind, spec, who))


def own_kind_hint(game: Game[Any, Any], kind: str, spec: str) -> str:
    """For a program that did not answer the welcome, in a game whose programs speak its
    own protocol (`hub.core.play.game.Programs.program_kind`: ``clubber`` in clubs): how to seat
    it (``; not a JSON bot? a clubs program is seated as clubs:clubber``); else nothing."""
    programs = game.programs
    own = programs.program_kind
    if kind != "program" or own == "program" or own not in programs.kinds:
        return ""
    return f"; not a JSON bot? a {game.name} program is seated as {own}:{spec}"


async def launch(seats: Sequence[object]) -> None:
    """Launch together every `LaunchedSeat` (a seat of a game's own kind,
    `hub.core.play.game.SeatKind`, may be one: it starts what it needs before the clocks start;
    a game with a seat that failed to launch ends before any seat is told anything, that
    seat at fault: `quiet_if_failed`)."""
    starting = [seat.launch for seat in seats if isinstance(seat, LaunchedSeat)]
    if starting:
        async with trio.open_nursery() as nursery:
            for start in starting:
                nursery.start_soon(start)


class ProgramSeat(LineSeat[S, M], LaunchedSeat[S, M], Generic[S, M]):
    """A program over pipes speaking a game's own protocol (the seat of a
    `hub.core.play.game.SeatKind`: a clubs
    player, a Kalah agent). `launch` starts ``argv`` and runs `hello`, the protocol's
    handshake; a failure is kept in `failure` (raised at ``begin``); then it plays as a
    `LineSeat` over ``codec``; `aclose` ends it with `stop`, even when cancelled."""

    not_started = "could not be started"
    """The start of a fault's detail when ``argv`` cannot be run."""

    def __init__(
        self,
        argv: Sequence[str],
        codec: SeatCodec[S, M],
        player: PlayerInfo,
        *,
        max_line: int = MAX_LINE,
    ) -> None:
        super().__init__(LineStream(None, None), codec, player)  # its pipes from `launch`
        self.argv = list(argv)
        self.max_line = max_line
        self.child: ChildProcess | None = None
        self.failure: SeatFailure | None = None

    async def hello(self, lines: LineStream) -> SeatFailure | None:
        """The protocol's handshake; why it failed, or None. Default: none."""
        return None

    async def stop(self, child: ChildProcess) -> None:
        """Close its stdin and reap it within `STOP_GRACE` (then SIGKILL)."""
        await child.close_stdin()
        await stop_all([child], grace=STOP_GRACE)

    async def launch(self) -> None:
        try:
            self.child = await ChildProcess.spawn(self.argv, max_line=self.max_line)
        except SpawnFailed as exc:
            self.failure = SeatFailure(Termination.DISCONNECT, f"{self.not_started}: {exc}")
            return
        self.lines = self.child.lines
        self.failure = await self.hello(self.lines)

    async def begin(self, start: Start[S]) -> None:
        if self.failure is not None:
            raise self.failure
        await super().begin(start)

    async def aclose(self) -> None:
        child, self.child = self.child, None
        if child is not None:
            with trio.CancelScope(shield=True):
                await self.stop(child)


class Quiet(BaseSeat[Any, Any]):
    """A seat of a game that one seat's failed launch ends at once: it says nothing to
    anyone; the failed seat's `failure` is raised at its ``begin``, so the game ends with
    that player at fault before anything is played."""

    def __init__(self, player: PlayerInfo, failure: SeatFailure | None) -> None:
        self.player = player
        self.failure = failure

    async def begin(self, start: Start[Any]) -> None:
        if self.failure is not None:
            raise self.failure


def quiet_if_failed(seats: list[Seat[Any, Any]]) -> list[Seat[Any, Any]]:
    """``seats``, or `Quiet` stand-ins for all of them if one failed to launch."""
    failures = [seat.failure if isinstance(seat, LaunchedSeat) else None for seat in seats]
    first = next((failure for failure in failures if failure is not None), None)
    if first is None:
        return seats
    return [
        Quiet(seat.player, first if failure is first else None)
        for seat, failure in zip(seats, failures, strict=True)
    ]


async def close(seats: Sequence[object]) -> None:
    """Close every `LaunchedSeat`, even when cancelled."""
    with trio.CancelScope(shield=True):
        for seat in seats:
            if isinstance(seat, LaunchedSeat):
                await seat.aclose()


SeatFactory = Callable[[SeatSpec, int], "contextlib.AbstractAsyncContextManager[Seat[Any, Any]]"]


@attrs.define(eq=False)
class SeatMaker:
    """Makes the seats of one game from specs. ``extra`` makes the kinds that need the
    host's resources (``human``: the keyboard; ``tcp``: a listener; ``web``: the browser
    seats' desk); ``seed`` seeds the random players (with the seat number)."""

    game: Game[Any, Any]
    seed: int = 0
    extra: dict[str, SeatFactory] = attrs.Factory(dict)
    detail: Any = None
    """What the game's own seat kinds are told of a match (`hub.core.play.game.MatchPlan`)."""
    children: list[ChildProcess] = attrs.Factory(list)

    @contextlib.asynccontextmanager
    async def seats(self, specs: Sequence[SeatSpec]) -> AsyncIterator[list[Seat[Any, Any]]]:
        async with contextlib.AsyncExitStack() as stack:
            made: list[Seat[Any, Any]] = []
            try:
                for number, spec in enumerate(specs):
                    made.append(await self._one(stack, spec, number))
                await launch(made)
                yield quiet_if_failed(made)
            finally:
                await close(made)
                await self.stop_children()

    async def _one(
        self, stack: contextlib.AsyncExitStack, spec: SeatSpec, number: int
    ) -> Seat[Any, Any]:
        seed = self.seed * 8 + number
        if is_general(spec, type(self.game)):
            return general_seat(self.game, spec, seed)
        if spec.kind == "ai":
            assert spec.level is not None
            level_kind = self.game.programs.level
            if level_kind is not None:
                return self._own(level_kind, str(spec.level), number, spec.text, seed)
            return ai_seat(self.game, spec.level, number)
        if spec.kind == "random":
            seed = spec.seed if spec.seed is not None else seed
            # named as given (``random:7``: its seed is who it is, `random_identity`)
            identity = random_identity(self.game.name, spec.seed)
            player = PlayerInfo(spec.text, "ai", spec.text, identity)
            return RandomSeat(self.game, random.Random(seed), player)
        if spec.kind == "program":
            return await self.program(spec)
        own = self.game.programs.kinds.get(spec.kind)
        if own is not None:
            prefix = f"{spec.kind}:"
            command = spec.text.removeprefix(prefix) if spec.text.startswith(prefix) else spec.text
            return self._own(own, command, number, spec.text, seed)
        factory = self.extra.get(spec.kind)
        if factory is None:
            raise SeatSpecError(f"{spec.kind!r} seats are not offered here")
        return await stack.enter_async_context(factory(spec, number))

    def _own(
        self, make: SeatKind, command: str, number: int, text: str, seed: int
    ) -> Seat[Any, Any]:
        return make(self.game, command, seat=number, spec=text, seed=seed, detail=self.detail)

    async def program(self, spec: SeatSpec) -> Seat[Any, Any]:
        name = short_name(spec)
        script = spec.argv[1] if spec.argv[0] == sys.executable else spec.argv[0]
        identity = program_identity(script)
        try:
            child = await ChildProcess.spawn(spec.argv, max_line=MAX_LINE, stderr=None)
        except SpawnFailed as exc:
            player = PlayerInfo(name, "program", spec.text, identity)
            return FailedSeat(player, Termination.DISCONNECT, str(exc))
        self.children.append(child)
        return await bot_seat(self.game, child.lines, name, "program", spec.text, identity)

    async def stop_children(self) -> None:
        children, self.children = self.children, []
        for child in children:
            with trio.CancelScope(shield=True):
                await child.close_stdin()
        if children:
            await stop_all(children, grace=STOP_GRACE)
