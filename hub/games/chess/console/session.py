"""`ConsoleSession`: the console's command interpreter, one core `Match` per game.

A game is a `Match` of the chess declaration, `hub.chess.game.ChessGame`, whose draw
policy is `Draws.NONE` (only checkmate, stalemate and resignation end a game), run in the
session's nursery: a human is a `FedSeat` fed by ``move e2 e4``, a computer a
`PromptedSeat` whose level thinks in a worker thread with a stop flag when the user types a
bare ``move``. What is printed about a game is written by its `Transcript` (a spectator of
the `Match`, drawing with `hub.games.chess.console.terminal`). A parsed command
(`hub.games.chess.console.commands`) goes to its handler through a table, one for play and
one for setup mode. ``undo`` stops the game as ``ABORTED`` (detail ``undo``) and plays on
in a new `Match` from the earlier `ChessState`, given the old match's `History` up to
there; setup mode happens between games and only gives the next game its start position
(docs/chess.md)."""

from __future__ import annotations

import contextlib
import enum
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence

import chess
import trio

from hub.chess.game import ChessGame
from hub.chess.rules import BLACK_SEAT, WHITE_SEAT, ChessState, Draws, initial, repetition_count
from hub.chess.search import ComputerPlayer, Searcher
from hub.chess.setup import setup_fen, setup_problems
from hub.core.model.bus import EventBus
from hub.core.model.referee import Outcome, Termination
from hub.core.model.values import PlayerInfo
from hub.core.play.fed import FedSeat
from hub.core.play.match import Match
from hub.core.play.record import History
from hub.core.play.threads import PromptedSeat, StopFlag, TurnTime, run_in_thread
from hub.core.play.vocabulary import MatchResult, Moved
from hub.games.chess.console.commands import (
    GAME_RUNNING,
    GAME_USAGE,
    HELP,
    ILLEGAL,
    LEVELS,
    LINE_TOO_LONG,
    NO_GAME,
    NO_MOVES_YET,
    PLAYERS,
    SETUP_DONE,
    ConsoleCommand,
    Done,
    FirstToMove,
    Place,
    Refusal,
    Remove,
    SetupCommand,
    ShowSetup,
    move_words,
    parse_command,
    parse_move,
    parse_setup,
)
from hub.games.chess.console.options import ConsoleOptions
from hub.games.chess.console.terminal import (
    COLOURS,
    Terminal,
    first_line,
    repetition_line,
    score_lines,
)


class Mode(enum.Enum):
    IDLE = "idle"
    GAME = "game"
    SETUP = "setup"


Player = ComputerPlayer | None
"""None for a human."""

Think = Callable[[ComputerPlayer, chess.Board, StopFlag], chess.Move]
"""How a computer player (or ``hint``) chooses a move in a worker thread; `search_move`
unless a test injects another. It must return soon after the stop flag is set."""


def search_move(player: ComputerPlayer, board: chess.Board, stop: StopFlag) -> chess.Move:
    """The player's move: levels 1-3 at once, level 4's search until its budget or ``stop``."""
    return player.choose(board, stop.is_set)


ConsoleSeat = FedSeat[ChessState, str] | PromptedSeat[ChessState, str]
CommandHandler = Callable[[Sequence[str]], Awaitable[list[str]]]


class ConsoleSession:
    """A console session: what each command line prints, with its games run as `Match`es.

    Commands run one at a time (`handle`). The game waits between them: its loop rests
    while it waits for a human's move (a `FedSeat`) or a computer's prompt (a
    `PromptedSeat`), and every command that moves waits until the loop rests again.
    The lines a command prints are those the transcript wrote about the game (boards,
    status, the end of a game), then the command's own message, if any.
    """

    def __init__(
        self,
        nursery: trio.Nursery,
        options: ConsoleOptions | None = None,
        *,
        bus: EventBus | None = None,
        think: Think = search_move,
        terminal: Terminal | None = None,
    ) -> None:
        self.options = options or ConsoleOptions()
        self.terminal = Terminal() if terminal is None or self.options.classic else terminal
        """What a person at a terminal sees besides the spec's output (nothing by default)."""
        self.bus = bus if bus is not None else EventBus()
        """Every game of the session is published here (the live view subscribes)."""
        self.game = ChessGame(draws=Draws.NONE)
        """The rules, notation and views of every game of the session (the declaration)."""
        self.rng = random.Random(self.options.seed)
        self.mode = Mode.IDLE
        self.players: tuple[Player, Player] = (None, None)
        self.names: tuple[str, str] = ("human", "human")
        self.half_points = [0, 0]
        self.setup_board = chess.BaseBoard.empty()
        self.setup_turn = chess.WHITE
        self.pending_fen: str | None = None
        """A completed set-up position, used by the next ``game``."""
        self.match: Match[ChessState, str] | None = None
        """The current game, or the last one (for ``history``)."""
        self._seats: list[ConsoleSeat] = []
        self._nursery = nursery
        self._think = think
        self._hint_player = ComputerPlayer(4, limits=self.options.limits, searcher=Searcher())
        self._shown: list[str] = []
        self._last_ending: list[str] = []
        """How the last game ended (``Checkmate! White wins!``), for ``board``."""
        self._failure: Exception | None = None
        self._handlers: Mapping[str, CommandHandler] = {
            "game": self._game,
            "move": self._move,
            "resign": self._resign,
            "setup": self._enter_setup,
            "undo": self._undo,
            "history": self._history,
            "hint": self._hint,
            "board": self._board,
            "help": self._help,
        }
        """Every verb `parse_command` accepts, to its handler (given the arguments)."""

    # -- entry points ---------------------------------------------------------------------

    @property
    def state(self) -> ChessState | None:
        """The current game's position, or the last game's (None before the first)."""
        return None if self.match is None else self.match.state

    async def handle(self, line: str) -> list[str]:
        """The output for one input line (without its newline)."""
        self._shown = []
        reply = await self._command(line)
        if self._failure is not None:
            raise self._failure  # the transcript is broken: a bug, not a user's error
        shown, self._shown = self._shown, []
        return shown + reply

    async def finish(self) -> list[str]:
        """The end of the input: the final score (a game still running is not scored; it
        ends as ``ABORTED``)."""
        await self._stop_game("end of input")
        return self.final_score()

    def final_score(self) -> list[str]:
        """The score of the games finished so far (what `finish` prints; a Ctrl-C prints it
        too, without waiting for the running game, which is not scored)."""
        return score_lines((self.half_points[WHITE_SEAT], self.half_points[BLACK_SEAT]))

    def line_too_long(self) -> list[str]:
        return [LINE_TOO_LONG]

    async def _command(self, line: str) -> list[str]:
        classic = self.options.classic
        if self.mode is Mode.SETUP:
            setup = parse_setup(line, classic=classic)
            if setup is None:
                return []
            if isinstance(setup, Refusal):
                return [setup.message]
            return self._setup_command(setup)
        command = parse_command(line, classic=classic)
        if command is None:
            return []
        if isinstance(command, Refusal):
            return [command.message]
        return await self._dispatch(command)

    async def _dispatch(self, command: ConsoleCommand) -> list[str]:
        return await self._handlers[command.verb](command.args)

    # -- games ----------------------------------------------------------------------------

    @property
    def board(self) -> chess.Board:
        assert self.match is not None
        return self.match.state.board

    async def _game(self, args: Sequence[str]) -> list[str]:
        if self.mode is Mode.GAME:
            return [GAME_RUNNING]
        if len(args) != 2 or any(arg not in PLAYERS for arg in args):
            return [GAME_USAGE]
        self.names = (args[0], args[1])
        self.players = (self._player(args[0]), self._player(args[1]))
        fen, self.pending_fen = self.pending_fen or chess.STARTING_FEN, None
        assert self._hint_player.searcher is not None
        self._hint_player.searcher.clear()
        await self._start(initial(fen))
        return []

    def _player(self, name: str) -> Player:
        if name == "human":
            return None
        rng = random.Random(self.rng.getrandbits(64))
        return ComputerPlayer(LEVELS[name], rng, self.options.limits)

    def _seat(self, seat: int) -> ConsoleSeat:
        name, player = self.names[seat], self.players[seat]
        if player is None:
            return FedSeat(player=PlayerInfo(name, "person", name))
        think = self._think

        def choose(state: ChessState, time: TurnTime, stop: StopFlag) -> str:
            return think(player, state.board.copy(), stop).uci()

        return PromptedSeat(choose, player=PlayerInfo(name, "ai", name))

    async def _start(
        self, state: ChessState, history: History[ChessState, str] | None = None
    ) -> None:
        """Play from ``state`` in a new `Match`: a new game, or after ``undo`` the same one
        on from its ``history`` (whose moves open the new match's record)."""
        self._seats = [self._seat(WHITE_SEAT), self._seat(BLACK_SEAT)]
        white, black = self.half_points
        self.match = Match(
            self.game,
            state,
            self._seats,
            events=self.bus,
            spectators=[Transcript(self)],
            history=history,
            settings={
                "rules": "console",
                "score": {"white": white / 2, "black": black / 2},
                "white": self.names[WHITE_SEAT],
                "black": self.names[BLACK_SEAT],
            },
        )
        self.mode = Mode.GAME
        self._nursery.start_soon(self.match.run)
        await self._settled()

    async def _settled(self) -> None:
        """Wait until the game rests again: a seat waits for a command, or it has ended
        (and its end has been published)."""
        match = self.match
        assert match is not None
        await match.settle()
        if match.result is not None:
            await match.wait_finished()

    async def _stop_game(self, why: str) -> None:
        """End the running game, if any, as ``ABORTED`` (``undo``, the end of the input)."""
        match = self.match
        if match is not None and not match.finished:
            match.stop(None, Termination.ABORTED, why)
            await match.wait_finished()

    def _to_move(self) -> int:
        assert self.match is not None
        return self.match.state.turn_seat

    async def _move(self, args: Sequence[str]) -> list[str]:
        if self.mode is not Mode.GAME or self.match is None:
            return [NO_GAME]
        seat = self._to_move()
        colour = COLOURS[seat]
        player = self._seats[seat]
        if isinstance(player, PromptedSeat):
            if args:
                return [f"{colour} is a computer: type move alone to let it play."]
            with self.terminal.thinking(f"{colour} ({self.names[seat]}) is thinking..."):
                await player.play()
        else:
            if not args:
                return [f"{colour} is a human: move needs squares (e.g. move e2 e4)."]
            parsed = parse_move(args, self.board, classic=self.options.classic)
            if isinstance(parsed, str):
                return [parsed]
            verdict = await player.submit(parsed.uci())
            if not verdict.accepted:  # pragma: no cover - moves come from the legal ones
                return [ILLEGAL]
        await self._settled()
        return []

    async def _resign(self, args: Sequence[str]) -> list[str]:
        if self.mode is not Mode.GAME or self.match is None:
            return [NO_GAME]
        humans = [seat for seat in (WHITE_SEAT, BLACK_SEAT) if self.players[seat] is None]
        loser = humans[0] if len(humans) == 1 else self._to_move()
        self.match.stop(loser, Termination.RESIGNATION)
        await self.match.wait_finished()
        return []

    # -- what the transcript shows --------------------------------------------------------

    def show(self, make: Callable[[], list[str]]) -> None:
        """Add ``make()``'s lines to what the command prints; an error in it is kept for
        `handle` to raise (a bug), not raised into the game."""
        try:
            self._shown += make()
        except Exception as exc:  # pragma: no cover - a bug; `handle` raises it
            self._failure = exc

    def moved_lines(self, moved: Moved[ChessState, str]) -> list[str]:
        """A move: the computer's move in words (not with ``--classic``), the position."""
        lines = []
        if self.players[moved.seat] is not None and not self.options.classic:
            words = move_words(chess.Move.from_uci(moved.text))
            lines.append(f"{COLOURS[moved.seat]} plays {words}.")
        return lines + self.position(moved.after)

    def position(self, state: ChessState) -> list[str]:
        """The board and, while the game goes on, the check and repetition notices (the
        end of a game is shown by `game_ended`)."""
        lines = self.terminal.draw(state.board, state)
        if self.game.to_move(state) is None:
            return lines
        if state.board.is_check():
            lines.append(f"{COLOURS[state.turn_seat]} is in check.")
        if not self.options.classic:
            count = repetition_count(state.start_fen, state.moves, state.board)
            if count >= 3:
                lines.append(repetition_line(count))
        return lines

    def game_ended(self, outcome: Outcome) -> list[str]:
        """Score a finished game and say how it ended (nothing for an aborted one)."""
        if outcome.termination is Termination.ABORTED:
            return []
        self.mode = Mode.IDLE
        if len(outcome.winners) != 1:  # a draw names both seats; only stalemate draws here
            self.half_points[WHITE_SEAT] += 1
            self.half_points[BLACK_SEAT] += 1
            self._last_ending = ["Stalemate!"]
            return ["Stalemate!"]
        [seat] = outcome.winners
        winner = COLOURS[seat]
        self.half_points[seat] += 2
        if outcome.termination is Termination.NORMAL:
            self._last_ending = [f"Checkmate! {winner} wins!"]
        else:
            self._last_ending = [f"{winner} wins!"]  # a resignation
        return list(self._last_ending)

    def _turn_line(self, state: ChessState) -> str:
        seat = state.turn_seat
        if self.players[seat] is None:
            return f"{COLOURS[seat]} to move."
        return f"{COLOURS[seat]} ({self.names[seat]}) to move: type move to let it play."

    # -- extras ---------------------------------------------------------------------------

    async def _board(self, args: Sequence[str]) -> list[str]:
        """``board``: the board again and whose turn it is (the running game's; else a
        set-up position waiting for ``game``; else the last game's end)."""
        if self.mode is Mode.GAME and self.match is not None:
            state = self.match.state
            return [*self.position(state), self._turn_line(state)]
        if self.pending_fen is not None:
            board = chess.Board(self.pending_fen)
            return [*self.terminal.draw(board), f"{COLOURS[not board.turn]} moves first."]
        if self.match is not None:
            state = self.match.state
            return [*self.terminal.draw(state.board, state), *self._last_ending]
        return [NO_GAME]

    async def _help(self, args: Sequence[str]) -> list[str]:
        return list(HELP)

    async def _undo(self, args: Sequence[str]) -> list[str]:
        if self.mode is not Mode.GAME or self.match is None:
            return [NO_GAME]
        state = self.match.state
        if not state.moves:
            return ["Nothing to undo."]
        has_human = None in self.players
        state = ChessState(state.start_fen, state.moves[:-1])
        # With a human playing a computer, take back to the human's turn.
        while has_human and state.moves and self.players[state.turn_seat] is not None:
            state = ChessState(state.start_fen, state.moves[:-1])
        # The new match plays the same game on: its record starts from the game's start.
        history = self.match.history(len(state.moves))
        await self._stop_game("undo")
        await self._start(history.state, history)
        return []

    async def _history(self, args: Sequence[str]) -> list[str]:
        state = self.state
        if state is None:
            return [NO_GAME]
        if not state.moves:
            return [NO_MOVES_YET]
        start = chess.Board(state.start_fen)
        moves = [chess.Move.from_uci(text) for text in state.moves]
        return [start.variation_san(moves)]

    async def _hint(self, args: Sequence[str]) -> list[str]:
        if self.mode is not Mode.GAME or self.match is None:
            return [NO_GAME]
        board, player, think = self.board, self._hint_player, self._think
        snapshot = board.copy()
        with self.terminal.thinking("Looking for a hint..."):
            move = await run_in_thread(lambda stop: think(player, snapshot, stop))
        return [f"Hint: move {move_words(move)} ({board.san(move)})"]

    # -- setup mode -----------------------------------------------------------------------

    async def _enter_setup(self, args: Sequence[str]) -> list[str]:
        if self.mode is Mode.GAME:
            return [GAME_RUNNING]
        self.mode = Mode.SETUP
        self.setup_board = chess.BaseBoard.empty()
        self.setup_turn = chess.WHITE
        self.pending_fen = None
        return self.terminal.draw(self.setup_board)

    def _setup_command(self, command: SetupCommand) -> list[str]:
        match command:
            case Place(piece, square):
                self.setup_board.set_piece_at(square, piece)
                return self.terminal.draw(self.setup_board)
            case Remove(square):
                if self.setup_board.remove_piece_at(square) is None:
                    return []
                return self.terminal.draw(self.setup_board)
            case FirstToMove(colour):
                self.setup_turn = colour
                # The spec's setup prints nothing here; a person at a terminal is told.
                return [first_line(colour)] if self.terminal.interactive else []
            case ShowSetup():
                return [*self.terminal.draw(self.setup_board), first_line(self.setup_turn)]
            case Done():
                problems = setup_problems(self.setup_board)
                if problems:
                    return problems
                self.pending_fen = setup_fen(self.setup_board, self.setup_turn)
                self.mode = Mode.IDLE
                return [SETUP_DONE]  # no board: the spec redisplays it only after + and -


@contextlib.asynccontextmanager
async def open_console(
    options: ConsoleOptions | None = None,
    *,
    bus: EventBus | None = None,
    think: Think = search_move,
    terminal: Terminal | None = None,
) -> AsyncIterator[ConsoleSession]:
    """A `ConsoleSession` whose games run in a nursery of the block; a game still running
    when the block ends is cancelled (published as ``ABORTED``)."""
    async with trio.open_nursery() as nursery:
        try:
            yield ConsoleSession(nursery, options, bus=bus, think=think, terminal=terminal)
        finally:
            nursery.cancel_scope.cancel()


class Transcript:
    """What the console prints about one game (a `hub.core.play.vocabulary.Spectator` of its
    `Match`): the board and status at the start and after each move, the computer's move in words,
    the end and the score. It reads the typed positions, so it costs no event and no FEN; the
    lines go to the session's command that caused them (`ConsoleSession.show`)."""

    def __init__(self, session: ConsoleSession) -> None:
        self._session = session

    def started(self, state: ChessState) -> None:
        self._session.show(lambda: self._session.position(state))

    def moved(self, moved: Moved[ChessState, str]) -> None:
        self._session.show(lambda: self._session.moved_lines(moved))

    def ended(self, result: MatchResult[ChessState, str]) -> None:
        self._session.show(lambda: self._session.game_ended(result.outcome))
