"""Chess seats on the core loop: the clock as a UCI ``go``, built-in levels in a worker thread,
UCI engines (a scriptable fake: crashes, hangs, garbage, illegal moves, failed starts) and
a person typing moves. Every engine process is reaped (the autouse fixture checks)."""

from __future__ import annotations

import math
import random
import re
import threading
from collections.abc import Sequence
from pathlib import Path

import attrs
import chess
import pytest
import trio

from hub.chess import seats as seats_module
from hub.chess.game import ChessGame
from hub.chess.rules import ChessState, initial
from hub.chess.search import CHECK_EVERY, Limits
from hub.chess.seats import (
    LEVEL_MARGIN,
    MIN_BUDGET,
    SLOW_NPS,
    ChessPersonSeat,
    EngineShelf,
    LevelAi,
    UciSeat,
    level_limits,
    level_seat,
    read_person_move,
    turn_go,
)
from hub.chess.uci import Go, parse_go
from hub.core.model.bus import EventBus
from hub.core.model.clock import SeatClock, TimeControl
from hub.core.model.events import GameEnded
from hub.core.model.referee import Termination
from hub.core.model.values import PlayerInfo
from hub.core.play.match import Match
from hub.core.play.threads import StopFlag, ThreadSeat
from hub.core.play.vocabulary import MatchResult, Seat, Start, Turn
from tests.chesslib.helpers import TIMEOUT, fake_engine_argv, logged
from tests.conftest import need_stockfish

KQK = "8/8/8/4k3/8/8/8/KQ6 w - - 0 1"


def capped(cap: int = 4) -> ChessGame:
    """Chess that ends in a draw after ``cap`` plies (so that a test game is short)."""
    return ChessGame(max_plies=cap)


async def play(
    seats: Sequence[Seat[ChessState, str]],
    control: TimeControl,
    *,
    referee: ChessGame | None = None,
    fen: str = chess.STARTING_FEN,
) -> MatchResult[ChessState, str]:
    referee = referee or capped()
    match = Match(
        referee,
        initial(fen),
        seats,
        time_control=control,
    )
    try:
        with trio.fail_after(TIMEOUT):
            return await match.run()
    finally:
        for seat in seats:
            if isinstance(seat, UciSeat):
                await seat.aclose()


def engine(*args: str, options: Sequence[tuple[str, str]] = ()) -> UciSeat:
    return UciSeat(
        argv=tuple(fake_engine_argv(*args)),
        options=tuple(options),
        player=PlayerInfo("fake", "engine"),
    )


def level(number: int, seed: int = 1) -> ThreadSeat[ChessState, str]:
    return level_seat(number, random.Random(seed))


# -- the clock as UCI says it -------------------------------------------------------------


def test_a_game_clock_is_wtime_btime_and_the_increments() -> None:
    control = TimeControl.parse("10+0.1")
    go = turn_go(control, chess.BLACK, 7.5, 7.5, 9.25)
    assert go == Go(wtime=9250, btime=7500, winc=100, binc=100)
    assert go.command() == "go wtime 9250 btime 7500 winc 100 binc 100"
    assert turn_go(control, chess.WHITE, 7.5, 7.5, None).command() == (
        "go wtime 7500 btime 7500 winc 100 binc 100"
    )


def test_a_per_move_limit_is_movetime_less_a_margin() -> None:
    assert turn_go(TimeControl.parse("2s"), chess.WHITE, 2.0, None, None).command() == (
        "go movetime 1950"
    )
    # a short limit keeps back a tenth, not the whole margin
    assert turn_go(TimeControl.parse("100ms"), chess.WHITE, 0.1, None, None).movetime == 90


def test_no_limit_is_a_fixed_movetime_and_both_limits_send_both() -> None:
    unlimited = turn_go(TimeControl(), chess.WHITE, math.inf, None, None)
    assert unlimited.command() == f"go movetime {seats_module.UNLIMITED_MOVETIME_MS}"
    both = TimeControl(per_move=1.0, base=60.0)
    assert turn_go(both, chess.WHITE, 1.0, 60.0, 30.0).command() == (
        "go movetime 950 wtime 60000 btime 30000 winc 0 binc 0"
    )


@pytest.mark.parametrize(
    "go",
    [
        Go(movetime=950),
        Go(wtime=1, btime=2, winc=3, binc=4),
        Go(wtime=1000, btime=1000, movestogo=20, depth=5),
        Go(infinite=True),
        Go(nodes=1000, mate=3),
    ],
)
def test_go_command_reads_back(go: Go) -> None:
    assert go.command().startswith("go")
    assert parse_go(go.command().split()[1:]) == go


def test_level_four_leaves_its_overrun_out_of_the_budget() -> None:
    go = turn_go(TimeControl.parse("200ms"), chess.WHITE, 0.2, None, None)  # movetime 180
    assert go.limits(chess.WHITE).movetime == pytest.approx(0.17)  # as hub engine reads it
    # the search may run one look at the clock (here 10 ms) past its budget ...
    assert level_limits(go, chess.WHITE, 0.2, 0.01).movetime == pytest.approx(0.16)
    # ... and ends two looks plus a margin before the deadline
    assert level_limits(go, chess.WHITE, 0.1, 0.01).movetime == pytest.approx(
        0.1 - 0.02 - LEVEL_MARGIN
    )
    assert level_limits(go, chess.WHITE, 0.01, 0.01).movetime == MIN_BUDGET
    unlimited = level_limits(Go(movetime=1000), chess.WHITE, math.inf, 0.01)
    assert unlimited.movetime == pytest.approx(0.98)
    assert level_limits(Go(depth=3), chess.WHITE, 1.0, 0.01).movetime is None


def test_level_four_plans_with_its_slowest_recent_speed() -> None:
    ai = LevelAi(4, random.Random(1))
    assert ai.check_interval == pytest.approx(CHECK_EVERY / SLOW_NPS)
    ai.search(chess.Board(), Limits(movetime=0.05), StopFlag())
    assert len(ai.speeds) == 1 and ai.speeds[0] > 1000  # measured
    ai.speeds.extend([40_000.0, 20_000.0, 30_000.0] * 3)  # only the last 8 count
    assert ai.check_interval == pytest.approx(CHECK_EVERY / 20_000)


# -- built-in levels ----------------------------------------------------------------------


async def test_level_four_mates_a_lone_king_in_time_against_level_one() -> None:
    result = await play(
        [level(4), level(1)], TimeControl.parse("3+0.05"), referee=ChessGame(), fen=KQK
    )
    assert result.fault is None
    assert result.record.winners == (0,)
    assert result.state.board.is_checkmate()


async def test_levels_play_legal_moves_under_a_game_clock() -> None:
    result = await play([level(3), level(2)], TimeControl.parse("5+0.1"), referee=capped(30))
    assert result.fault is None
    assert len(result.moves) == 30
    assert result.record.detail == "adjudicated: 30 plies"


@attrs.define(eq=False)
class HeldLevel(LevelAi):
    """A level whose worker thread, its search over, waits for ``release``: a cancelled
    `choose` that waited for its thread could not return before the test releases it."""

    thinking: threading.Event = attrs.Factory(threading.Event)
    release: threading.Event = attrs.Factory(threading.Event)
    stops: list[StopFlag] = attrs.Factory(list)

    def search(self, board: chess.Board, limits: Limits, stop: StopFlag) -> str:
        self.stops.append(stop)
        self.thinking.set()
        try:
            return super().search(board, limits, stop)
        finally:
            self.release.wait(TIMEOUT)


async def test_a_cancelled_level_four_returns_at_once() -> None:
    held = HeldLevel(level=4, rng=random.Random(1))
    seat = ThreadSeat(held, PlayerInfo("ai:4", "ai"))
    clock = SeatClock(TimeControl())
    state = initial()
    turn = Turn(0, state, clock.start(trio.current_time()), clock, 1)

    async def choose() -> None:
        await seat.choose(turn)  # no limit: a one-second search, cut short
        pytest.fail("the search was not cancelled")

    try:
        with trio.fail_after(TIMEOUT / 2):  # before the thread's own release
            async with trio.open_nursery() as nursery:
                nursery.start_soon(choose)
                await trio.to_thread.run_sync(held.thinking.wait)  # the search is running
                nursery.cancel_scope.cancel()
        # Returned while its thread is still held, and the search was told to stop.
        assert not held.release.is_set()
        assert [stop.is_set() for stop in held.stops] == [True]
    finally:
        held.release.set()


async def test_the_same_seed_plays_the_same_moves() -> None:
    first = await play([level(2, 7), level(3, 8)], TimeControl(), referee=capped(12))
    again = await play([level(2, 7), level(3, 8)], TimeControl(), referee=capped(12))
    assert first.moves == again.moves


# -- UCI engines ----------------------------------------------------------------------------


async def test_an_engine_is_set_up_and_told_the_clocks(tmp_path: Path) -> None:
    log = tmp_path / "log"
    uci = engine("--log", str(log), options=[("Skill Level", "3"), ("Hash", "16")])
    result = await play([uci, level(1)], TimeControl.parse("5+0.25"))
    assert result.fault is None and len(result.moves) == 4
    sent = log.read_text().splitlines()
    assert sent[:6] == [
        "uci",
        "setoption name Skill Level value 3",
        "setoption name Hash value 16",
        "isready",
        "ucinewgame",
        "isready",
    ]
    assert sent[6] == "position startpos"
    assert re.fullmatch(r"go wtime (4\d{3}|5000) btime 5000 winc 250 binc 250", sent[7])
    first, reply = result.moves[0][1], result.moves[1][1]
    assert sent[8] == f"position startpos moves {first} {reply}"
    assert re.fullmatch(r"go wtime \d+ btime \d+ winc 250 binc 250", sent[9])
    # Each search began as soon as the opponent's move was in (`UciSeat.foresee`), so the
    # last move, which ended the game, started one more; it is stopped before the engine
    # exits and is reaped.
    assert sent[10] == "position startpos moves " + " ".join(move for _, move in result.moves)
    assert re.fullmatch(r"go wtime \d+ btime \d+ winc 250 binc 250", sent[11])
    assert sent[12:] == ["stop", "quit"]


class RecordingTurn(Turn[ChessState]):
    """A turn that keeps when its player was told of it (`Turn.told`)."""

    __slots__ = ("told_at",)

    def told(self, now: float) -> None:
        self.told_at = now
        super().told(now)


async def test_an_engine_is_timed_from_its_go(tmp_path: Path) -> None:
    """The seat says when the ``go`` was written (`Turn.told`): the engine's clock starts
    there, as fastchess times it, so the referee's delay before it is not the engine's."""
    log = tmp_path / "log"
    uci = engine("--log", str(log))
    clock = SeatClock(TimeControl.parse("5+0"))
    try:
        await uci.launch()
        await uci.begin(Start(0, initial(chess.STARTING_FEN), clock.control, None))  # type: ignore[arg-type]
        with trio.fail_after(TIMEOUT):
            await trio.sleep(0.01)  # the referee's own delay, before the engine is told
            asked = trio.current_time() - 0.01
            turn = RecordingTurn(0, initial(chess.STARTING_FEN), clock.start(asked), clock, 1)
            move, scope = await choose_in_time(uci, turn)
        assert chess.Move.from_uci(move) in chess.Board().legal_moves
        assert turn.told_at >= asked + 0.01
        assert turn.deadline == pytest.approx(turn.told_at + 5.0)
        assert scope.deadline == turn.deadline
        assert "go wtime" in log.read_text()
    finally:
        await uci.aclose()


async def begun(seat: UciSeat, index: int, control: TimeControl) -> None:
    """``seat`` launched and begun as ``index`` of a game from the start, under ``control``."""
    await seat.launch()
    await seat.begin(Start(index, initial(), control, None))  # type: ignore[arg-type]


async def foreseen_e2e4(
    seat: UciSeat, control: TimeControl, started: float, stopped: float
) -> None:
    """``seat`` begun as Black under ``control`` and told White's 1. e2e4 (`UciSeat.foresee`),
    White's clock started at ``started`` and stopped at ``stopped``."""
    await begun(seat, 1, control)
    white = SeatClock(control)
    await seat.foresee(Turn(0, initial(), white.start(started), white, 1), "e2e4", stopped)


async def choose_in_time(seat: UciSeat, turn: Turn[ChessState]) -> tuple[str, trio.CancelScope]:
    """``seat``'s move for ``turn``, asked as the match loop asks it: under a scope at the
    turn's deadline, which the seat may move (`Turn.told`, `Turn.began`)."""
    with trio.move_on_at(turn.deadline) as scope:
        turn.scope = scope
        return await seat.choose(turn), scope
    raise AssertionError("no move by the deadline")


def commands(log: Path) -> list[str]:
    """What the fake engine was told after its set-up (``ucinewgame``, ``isready``)."""
    sent = log.read_text().splitlines()
    return sent[sent.index("ucinewgame") + 2 :]


@pytest.mark.system  # an engine process
async def test_a_foreseen_search_starts_with_the_clocks_the_move_leaves(tmp_path: Path) -> None:
    """`UciSeat.foresee`: the opponent's move is in, unchecked; the engine is sent the
    position after it and the clocks as the move leaves them (the mover's less what it took
    plus the increment), and `choose` takes that search over: no second ``go``, and the
    engine's clock runs from the ``go`` that was written, not from when the loop asked."""
    log = tmp_path / "log"
    control = TimeControl.parse("5+0.25")
    uci = engine("--log", str(log))
    try:
        await foreseen_e2e4(uci, control, 100.0, 100.5)  # White took 0.5 s: 5 - 0.5 + 0.25
        assert uci.ahead is not None
        written = uci.ahead[1]
        with trio.fail_after(TIMEOUT):
            await logged(log, "go ")
        assert commands(log) == [
            "position startpos moves e2e4",
            "go wtime 4750 btime 5000 winc 250 binc 250",
        ]
        black = SeatClock(control)
        state = ChessGame().apply(initial(), "e2e4")
        with trio.fail_after(TIMEOUT):
            await trio.sleep(0.01)  # the referee's checks, while the engine thinks
            asked = trio.current_time()
            reply = Turn(1, state, black.start(asked), black, 2)
            move, scope = await choose_in_time(uci, reply)
        assert chess.Move.from_uci(move) in state.board.legal_moves
        assert uci.ahead is None and uci.idle
        assert black.started_at == written < asked  # timed from its go
        assert reply.deadline == pytest.approx(written + 5.0) == scope.deadline
        assert len(commands(log)) == 2  # the same search: nothing more was sent
    finally:
        await uci.aclose()
    assert commands(log)[2:] == ["quit"]


@pytest.mark.system  # an engine process
async def test_a_search_foreseen_for_another_position_is_stopped_first(tmp_path: Path) -> None:
    log = tmp_path / "log"
    control = TimeControl.parse("5+0")
    uci = engine("--log", str(log))
    try:
        now = trio.current_time()
        await foreseen_e2e4(uci, control, now, now)
        state = ChessGame().apply(initial(), "d2d4")  # (a person's move, taken back)
        black = SeatClock(control)
        reply = Turn(1, state, black.start(trio.current_time()), black, 2)
        with trio.fail_after(TIMEOUT):
            move, _ = await choose_in_time(uci, reply)
        assert chess.Move.from_uci(move) in state.board.legal_moves
        sent = commands(log)
        assert sent[:3] == ["position startpos moves e2e4", sent[1], "stop"]
        assert sent[3] == "position startpos moves d2d4" and sent[4].startswith("go wtime")
    finally:
        await uci.aclose()


@pytest.mark.system  # an engine process
async def test_a_search_foreseen_when_the_game_ends_is_stopped_and_the_engine_kept(
    tmp_path: Path,
) -> None:
    """The move that ends the game (here an illegal one) started a search; at the end the
    search is stopped and its ``bestmove`` read, so the engine is idle and goes back on the
    shelf for the next game instead of being stopped, told ``ucinewgame`` at once (it clears
    its hash meanwhile); the next game that takes it only reads the ``readyok``."""
    log = tmp_path / "log"
    shelf = EngineShelf()
    uci = engine("--log", str(log))
    uci.shelf = shelf
    try:
        result = await play([engine("--mode", "illegal"), uci], TimeControl.parse("5+0"))
        assert result.fault is not None and result.fault.seat == 0
        assert result.termination is Termination.ILLEGAL_MOVE
        assert [engine.alive for engines in shelf.idle.values() for engine in engines] == [True]
        again = engine("--log", str(log))
        again.shelf = shelf
        second = await play([again, level(1)], TimeControl.parse("5+0"))
        assert second.fault is None and again.player.identity == uci.player.identity
    finally:
        await shelf.aclose()
    sent = commands(log)  # (complete: the engine has quit; one engine served both games)
    assert sent[0] == "position startpos moves a1a1" and sent[1].startswith("go wtime")
    assert sent[2:5] == ["stop", "ucinewgame", "isready"]
    assert sent[5] == "position startpos" and sent[6].startswith("go wtime")
    assert sent.count("ucinewgame") == 2 and sent[-3:] == ["ucinewgame", "isready", "quit"]


@pytest.mark.system  # an engine process
async def test_a_foreseen_search_that_will_not_stop_has_its_engine_stopped(
    tmp_path: Path, gate: tuple[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(seats_module, "STOP_GRACE", 0.2)
    shelf = EngineShelf()
    uci = engine("--gate", gate[0])
    uci.shelf = shelf
    control = TimeControl.parse("5+0")
    try:
        now = trio.current_time()
        await foreseen_e2e4(uci, control, now, now)
        assert uci.ahead is not None and not uci.idle
        with trio.fail_after(TIMEOUT):
            await uci.aclose()  # the search never ends: ``stop`` goes unanswered
        assert uci.engine is None and not shelf.idle
    finally:
        await shelf.aclose()


async def test_an_engine_as_black_gets_a_per_move_limit(tmp_path: Path) -> None:
    log = tmp_path / "log"
    result = await play([level(1), engine("--log", str(log))], TimeControl.parse("2s"))
    assert result.fault is None
    goes = [line for line in log.read_text().splitlines() if line.startswith("go")]
    assert len(goes) == 2
    assert all(re.fullmatch(r"go movetime 19[0-4]\d|go movetime 1950", go) for go in goes)


async def expect_fault(
    seat: UciSeat, control: TimeControl, termination: Termination, detail: str
) -> MatchResult[ChessState, str]:
    result = await play([seat, level(1)], control)
    assert result.fault is not None, result.record
    assert (result.fault.seat, result.termination) == (0, termination)
    assert detail in result.fault.detail
    assert result.record.winners == (1,)
    assert seat.engine is None  # stopped and reaped
    return result


@pytest.mark.parametrize(
    ("args", "termination", "detail"),
    [
        (
            ("--die-after", "2"),
            Termination.DISCONNECT,
            "searching: the engine exited with status 3",
        ),
        (("--mode", "garbage"), Termination.MALFORMED, "bestmove is not a move: 'bestmove zz'"),
        (("--mode", "long"), Termination.MALFORMED, "line longer than 65536 bytes"),
        (("--mode", "illegal"), Termination.ILLEGAL_MOVE, "'a1a1' is not a legal move"),
        (("--mode", "exit"), Termination.DISCONNECT, "during the handshake"),
    ],
    ids=["crash", "garbage", "endless line", "illegal move", "exits at once"],
)
async def test_a_broken_engine_loses(
    args: tuple[str, ...], termination: Termination, detail: str
) -> None:
    result = await expect_fault(engine(*args), TimeControl.parse("5+0"), termination, detail)
    if termination is Termination.ILLEGAL_MOVE:
        assert result.record.fault is not None and result.record.fault.move == "a1a1"


async def test_an_engine_that_hangs_loses_on_time_and_is_killed() -> None:
    started = trio.current_time()
    result = await expect_fault(
        engine("--delay", "60"), TimeControl.parse("200ms"), Termination.TIMEOUT, "in time"
    )
    assert result.moves == []
    assert trio.current_time() - started < 5  # the 200 ms, then quit, a grace and SIGKILL


async def test_an_engine_that_hangs_without_a_clock_loses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(seats_module, "UNLIMITED_MOVETIME_MS", 50)
    monkeypatch.setattr(seats_module, "UNLIMITED_GRACE", 0.2)
    await expect_fault(
        engine("--delay", "60"), TimeControl(), Termination.TIMEOUT, "no bestmove within 0.25 s"
    )


async def test_an_engine_that_cannot_start_loses_before_the_first_move() -> None:
    missing = UciSeat(argv=("/nonexistent/engine",), player=PlayerInfo("missing", "engine"))
    result = await expect_fault(
        missing, TimeControl.parse("5+0"), Termination.DISCONNECT, "could not be started"
    )
    assert result.moves == []


async def test_an_engine_without_uciok_loses_on_time() -> None:
    seat = engine("--mode", "silent")
    seat.start_timeout = 0.3
    await expect_fault(seat, TimeControl.parse("5+0"), Termination.TIMEOUT, "no uciok within")


async def test_cancelling_a_game_stops_its_engine(tmp_path: Path) -> None:
    bus = EventBus()
    ended: list[GameEnded] = []
    bus.listen(lambda event: ended.append(event) if isinstance(event, GameEnded) else None)
    log = tmp_path / "log"
    seat = engine("--delay", "60", "--log", str(log))
    referee = ChessGame()
    match = Match(referee, initial(), [seat, level(1)], events=bus)

    async def run() -> None:
        try:
            await match.run()
        finally:
            await seat.aclose()
        pytest.fail("the game should still be waiting for the engine's move")

    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(run)
            await logged(log, "go ")  # the engine is thinking
            nursery.cancel_scope.cancel()
    assert ended[0].record.termination is Termination.ABORTED
    assert seat.engine is None


async def test_a_real_stockfish_with_a_skill_level_plays_legal_moves() -> None:
    stockfish = UciSeat(
        argv=(need_stockfish(),),
        options=(("Skill Level", "0"), ("Threads", "1")),
        player=PlayerInfo("stockfish", "engine"),
    )
    result = await play([level(1), stockfish], TimeControl.parse("2+0.05"), referee=capped(8))
    assert result.fault is None and len(result.moves) == 8


# -- a person -------------------------------------------------------------------------------


@attrs.define
class Terminal:
    typed: list[str | None]
    shown: list[str] = attrs.Factory(list)

    async def read_line(self) -> str | None:
        await trio.lowlevel.checkpoint()
        return self.typed.pop(0)

    def write(self, lines: Sequence[str]) -> None:
        self.shown.extend(lines)


def test_a_person_types_uci_or_san() -> None:
    board = chess.Board()
    assert read_person_move(board, " e2e4 ") == "e2e4"
    assert read_person_move(board, "Nf3") == "g1f3"
    assert read_person_move(board, "e2e5") is None
    assert read_person_move(board, "0000") is None
    assert read_person_move(board, "hello") is None
    promotion = chess.Board("4k3/P7/8/8/8/8/8/4K3 w - - 0 1")
    assert read_person_move(promotion, "a7a8Q") == "a7a8q"
    assert read_person_move(promotion, "a8=N") == "a7a8n"


async def test_a_person_is_asked_again_until_a_legal_move_and_sees_the_replies() -> None:
    terminal = Terminal(["", "zz", "e2e5", "e4", "Nf3", "resign"])
    person = ChessPersonSeat(terminal.read_line, terminal.write, player=PlayerInfo("me", "person"))
    result = await play([person, level(1)], TimeControl.parse("60+0"), referee=capped(10))
    assert [move for _, move in result.moves][0::2] == ["e2e4", "g1f3"]
    assert (result.fault and result.fault.termination) is Termination.RESIGNATION
    shown = "\n".join(terminal.shown)
    assert "You play white against ai:1." in shown
    assert "Not a legal move here: zz" in shown and "Not a legal move here: e2e5" in shown
    assert re.search(r"ai:1 plays \S+ \([a-h][1-8][a-h][1-8]\)\.", shown)
    assert shown.endswith("Game over: 0-1 (white: resignation)")


async def test_the_end_of_input_resigns() -> None:
    terminal = Terminal([None])
    person = ChessPersonSeat(terminal.read_line, terminal.write)
    result = await play([level(1), person], TimeControl())
    assert result.fault is not None and result.fault.seat == 1
    assert result.termination is Termination.RESIGNATION
