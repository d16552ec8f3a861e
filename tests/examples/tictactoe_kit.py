"""A `TournamentKit` for the tic-tac-toe example, so ``hub match`` can be built and tested on a
tiny game (``hub match tests.examples.tictactoe_kit:kit first random:1 --games 10``).

Players:

* ``first``: takes the first free cell; ``random:SEED``: a random free cell (seeded by SEED
  and the game id, so a game replays the same);
* ``busy:MS``: spins the CPU for MS milliseconds in a worker thread, then takes the first
  free cell (a stand-in for an AI that uses its time, for the benchmark);
* ``program:PATH``: an executable speaking the example's line protocol (see tictactoe.py);
* ``broken``: a seat with a bug (raises RuntimeError when asked for a move): the game is
  aborted and `play` raises, which is what a kit failure looks like to the runner;
* ``exit:CODE``: ends the process that plays the game with ``os._exit(CODE)`` (a worker
  that dies); never use it in-process.

Option ``--time-ms MS``: each player's time per move (default 1000; 0: no limit). Openings:
X's first move, a random cell from the seed.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs
import trio

from hub.core.io.process import ChildProcess, SpawnFailed, stop_all
from hub.core.model.bus import EventBus
from hub.core.model.clock import TimeControl
from hub.core.model.events import GameRecord
from hub.core.model.referee import Termination
from hub.core.model.values import PlayerInfo
from hub.core.play.kit import GameSpec
from hub.core.play.match import Match
from hub.core.play.seats import LineSeat
from hub.core.play.threads import StopFlag, ThreadSeat, TurnTime
from hub.core.play.vocabulary import BaseSeat, Seat, SeatFailure, Start, Turn
from tests.examples.tictactoe import Board, Codec, TicTacToe

if TYPE_CHECKING:
    import argparse

KINDS = ("first", "random:SEED", "busy:MS", "program:PATH", "broken", "exit:CODE")


def first_free(board: Board) -> int:
    return board.cells.index(".")


@attrs.define(eq=False)
class FirstFree(BaseSeat[Board, int]):
    player: PlayerInfo

    async def choose(self, turn: Turn[Board]) -> int:
        await trio.lowlevel.checkpoint()
        return first_free(turn.state)


@attrs.define(eq=False)
class RandomFree(BaseSeat[Board, int]):
    player: PlayerInfo
    rng: random.Random

    async def choose(self, turn: Turn[Board]) -> int:
        await trio.lowlevel.checkpoint()
        return self.rng.choice([i for i, cell in enumerate(turn.state.cells) if cell == "."])


@attrs.define(eq=False)
class Broken(BaseSeat[Board, int]):
    player: PlayerInfo

    async def choose(self, turn: Turn[Board]) -> int:
        raise RuntimeError("this player has a bug")


@attrs.define(eq=False)
class Exits(BaseSeat[Board, int]):
    player: PlayerInfo
    code: int

    async def choose(self, turn: Turn[Board]) -> int:
        os._exit(self.code)


@attrs.define(eq=False)
class NotStarted(BaseSeat[Board, int]):
    player: PlayerInfo
    why: str

    async def begin(self, start: Start[Board]) -> None:
        raise SeatFailure(Termination.DISCONNECT, self.why)


def busy(milliseconds: int) -> Any:
    def think(state: Board, budget: TurnTime, stop: StopFlag) -> int:
        until = time.perf_counter() + milliseconds / 1000
        while time.perf_counter() < until and not stop.is_set():
            pass
        return first_free(state)

    return think


def _argument(spec: str) -> tuple[str, str]:
    kind, _, argument = spec.partition(":")
    return kind, argument


class TicTacToeKit:
    seats = (2, 2)

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        group = parser.add_argument_group("tic-tac-toe")
        group.add_argument(
            "--time-ms",
            type=int,
            default=1000,
            metavar="MS",
            help="each player's time per move in ms; 0 is no limit (default 1000)",
        )

    def settings(self, options: argparse.Namespace) -> dict[str, Any]:
        if options.time_ms < 0:
            raise ValueError("--time-ms cannot be negative")
        return {"time_ms": options.time_ms}

    def check_player(self, spec: str, settings: Mapping[str, Any]) -> str | None:
        kind, argument = _argument(spec)
        if kind in ("first", "broken") and not argument:
            return None
        if kind in ("random", "busy", "exit") and argument.isdigit():
            return None
        if kind == "program":
            if os.path.isfile(argument) and os.access(argument, os.X_OK):
                return None
            return f"{spec}: {argument or '(nothing)'} is not an executable file"
        return f"{spec}: not a tic-tac-toe player ({', '.join(KINDS)})"

    def openings(self, settings: Mapping[str, Any], count: int, seed: int) -> list[Any]:
        rng = random.Random(seed)
        return [rng.randrange(9) for _ in range(count)]

    async def play(self, spec: GameSpec, events: EventBus) -> GameRecord:
        children: list[ChildProcess] = []
        seats: list[Seat[Board, int]] = []
        try:
            for seat, name in enumerate(spec.players):
                seats.append(await self._seat(name, seat, spec, children))
            board = Board()
            if spec.opening is not None:
                board = TicTacToe().apply(board, int(spec.opening))
            match = Match(
                TicTacToe(),
                board,
                seats,
                events=events,
                time_control=TimeControl.per_move_ms(int(spec.settings.get("time_ms", 0))),
                settings={**spec.settings, "opening": spec.opening},
                game_id=spec.game_id,
            )
            result = await match.run()
        finally:
            for child in children:
                await child.close_stdin()
            await stop_all(children, grace=1.0)
        return result.record

    async def _seat(
        self, name: str, seat: int, spec: GameSpec, children: list[ChildProcess]
    ) -> Seat[Board, int]:
        kind, argument = _argument(name)
        if kind == "random":
            rng = random.Random(f"{argument}:{spec.game_id}:{seat}")
            return RandomFree(PlayerInfo(name, "ai", name), rng)
        if kind == "busy":
            return ThreadSeat(busy(int(argument)), PlayerInfo(name, "ai", name))
        if kind == "broken":
            return Broken(PlayerInfo(name, "ai", name))
        if kind == "exit":
            return Exits(PlayerInfo(name, "ai", name), int(argument))
        if kind == "program":
            player = PlayerInfo(os.path.basename(argument), "program", name)
            try:
                child = await ChildProcess.spawn([argument])
            except SpawnFailed as exc:
                return NotStarted(player, str(exc))
            children.append(child)
            return LineSeat(child.lines, Codec(), player)
        return FirstFree(PlayerInfo(name, "ai", name))


kit = TicTacToeKit()
