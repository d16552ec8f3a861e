"""``hub play chess --gui``: the console's own page, where its person moves as at a chess site.

`ConsolePage` is, for the web layer (`hub.web.play`), a desk of one seat: the page
``/play/TOKEN`` (the URL the console prints on standard error) is the seat pages' page and
script (``static/play.js``: click or drag a piece, the legal targets marked, the promotion
chooser, the moves in SAN, stepping back through them), built from the console's current game.
Its token (``secrets.token_urlsafe``) is the only key: without it a page is a spectator's
(``/console``, read-only) and ``POST /play/OTHER/move`` is 404; the site's door
(`hub.web.guard.Guard`) has checked Host and Origin before, and every POST's body is checked
as every seat's (`hub.web.guard.read_json`).

A move from the page is a command line: `submit` checks it against the position the page
showed (a human to move, a legal move) and hands ``move e2 e4`` (the spec's words,
`move_words`) to `serve_page`, which runs it through the console session exactly as if it had
been typed, under the lock the terminal's lines take too (one command at a time), and prints
its output on standard output, a note of it (``move e2 e4 (from the page)``) on standard error.
A computer's turn takes no clicks: the page says to type ``move`` at the terminal. ``resign``
from the page is the ``resign`` command (with one human, the human resigns).
"""

from __future__ import annotations

import contextlib
import secrets
import time
from collections.abc import Iterator
from typing import Any

import attrs
import chess
import trio

from hub.chess.rules import BLACK_SEAT, WHITE_SEAT, ChessState
from hub.core.io.output import Output
from hub.core.model.bus import EventBus
from hub.core.model.events import Event, GameEnded
from hub.core.model.referee import Termination
from hub.core.model.values import PlayerInfo
from hub.core.play.fed import FedSeat
from hub.core.play.game import legal_texts
from hub.declared.terminal import result_words
from hub.games.chess.console.commands import move_words
from hub.games.chess.console.session import ConsoleSession, Mode
from hub.games.chess.console.terminal import COLOURS, format_points

NOT_HERE = "not in the console"


@attrs.frozen
class PageCommand:
    """A command line from the page, for the position after ``ply`` moves of ``game_id``."""

    line: str
    game_id: str
    ply: int


class ConsolePage:
    """The console's page as a desk of one seat (`hub.web.play.Desk` and `PlaySeat`):
    its snapshot (what ``play.js`` draws), and the moves handed in from it."""

    def __init__(self, bus: EventBus, token: str | None = None) -> None:
        self.token = token if token is not None else secrets.token_urlsafe(18)
        self.session: ConsoleSession | None = None
        """The console's session while it reads commands (`attach`)."""
        self.lock = trio.Lock()
        """Held while a command runs: the terminal's lines and the page's take turns."""
        self.version = 0
        self.error = ""
        self._changed = trio.Event()
        self._send, self.commands = trio.open_memory_channel[PageCommand](1)
        self._moves: tuple[str, tuple[str, ...], list[str]] = ("", (), [])
        """The move list in SAN of the last snapshot (start FEN, moves, words), extended."""
        self._since = time.monotonic()
        """When the side to move began its turn (the game's last event)."""
        bus.listen(self._heard)

    # -- the desk --------------------------------------------------------------------------

    def find(self, token: str) -> ConsolePage | None:
        """This page for its token, else None (the web answers 404)."""
        return self if secrets.compare_digest(token.encode(), self.token.encode()) else None

    def attach(self, session: ConsoleSession | None) -> None:
        """The session whose games the page shows and takes moves for (None: it ended)."""
        self.session = session
        self.changed()

    def _heard(self, event: Event) -> None:
        if not isinstance(event, GameEnded):
            self._since = time.monotonic()
        self.changed()

    def changed(self) -> None:
        """Something the page shows may have changed (an event, a command)."""
        self.version += 1
        self._changed.set()
        self._changed = trio.Event()

    async def wait_changed(self, version: int) -> None:
        if self.version <= version:
            await self._changed.wait()

    @contextlib.contextmanager
    def attend(self) -> Iterator[None]:
        yield  # the console does not wait for its page

    # -- what the page may do --------------------------------------------------------------

    def _running(self) -> tuple[ConsoleSession, ChessState] | str:
        session = self.session
        if session is None:
            return "the console has ended"
        if session.mode is not Mode.GAME or session.match is None:
            return "no game in progress: start one at the terminal (game human computer4)"
        return session, session.match.state

    def submit(self, text: str) -> str | None:
        """A move from the page (UCI text): None if it goes to the console, else why not."""
        running = self._running()
        if isinstance(running, str):
            return running
        session, state = running
        seat = state.turn_seat
        if not isinstance(session._seats[seat], FedSeat):
            return f"{COLOURS[seat]} is a computer: type move at the terminal to let it play"
        try:
            move = chess.Move.from_uci(text.strip()[:10])
        except ValueError:
            return "not a move"
        if move not in state.board.legal_moves:
            return "illegal move"
        return self._queue(f"move {move_words(move)}", session, state)

    def resign(self) -> str | None:
        """``resign`` from the page (as typed: with one human, the human resigns)."""
        running = self._running()
        if isinstance(running, str):
            return running
        session, state = running
        if None not in session.players:
            return "no person plays this game"
        return self._queue("resign", session, state)

    def _queue(self, line: str, session: ConsoleSession, state: ChessState) -> str | None:
        assert session.match is not None
        try:
            self._send.send_nowait(PageCommand(line, session.match.game_id, len(state.moves)))
        except trio.WouldBlock:
            return "a move is already on its way"
        self.error = ""
        return None

    def offer_draw(self) -> str | None:
        return NOT_HERE

    def decline_draw(self) -> str | None:
        return NOT_HERE

    def ask_rematch(self) -> str | None:
        return NOT_HERE

    def leave(self) -> str | None:
        return NOT_HERE

    async def run_command(self, command: PageCommand, out: Output, err: Output) -> None:
        """Run a command from the page as if typed, unless the game has moved on since the
        page sent it (a move typed at the terminal meanwhile): then the page is told."""
        async with self.lock:
            session = self.session
            match = None if session is None else session.match
            if (
                session is None
                or match is None
                or session.mode is not Mode.GAME
                or match.game_id != command.game_id
                or len(match.state.moves) != command.ply
            ):
                self.error = "the position changed before your move arrived"
                self.changed()
                return
            err.line(f"{command.line} (from the page)")
            err.flush()
            for line in await session.handle(command.line):
                out.line(line)
            out.flush()
            self.changed()

    # -- what the page shows ---------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The page's JSON (the keys of a seat's snapshot, `hub.declared.browser`), with
        ``follows`` (the page stays open from game to game), ``title`` and ``score``."""
        session = self.session
        match = None if session is None else session.match
        data: dict[str, Any] = {
            "version": self.version,
            "game": "chess",
            "title": "Chess console",
            "seat": -1,
            "seat_name": "",
            "game_id": "",
            "players": [],
            "to_move": None,
            "your_turn": False,
            "legal": [],
            "legal_words": [],
            "status": [],
            "html": "<p>No game yet.</p>",
            "moves": [],
            "numbered": True,
            "error": self.error,
            "left_ms": None,
            "result": "",
            "over": False,
            "rematch": None,
            "draw": {"possible": False},
            "next": "",
            "waiting": "No game in progress: start one at the terminal (game human computer4).",
            "can_leave": False,
            "follows": True,
            "score": "",
        }
        if session is None:
            data["waiting"] = "The console has ended."
            return data
        white, black = session.half_points[WHITE_SEAT], session.half_points[BLACK_SEAT]
        data["score"] = f"Score: White {format_points(white)}, Black {format_points(black)}"
        if match is None:
            return data
        game, pictures, state = session.game, session.game.pictures, match.state
        view = game.view(state, None)
        start = game.view(ChessState(state.start_fen, ()), None)
        running = session.mode is Mode.GAME and match.result is None
        to_move = state.turn_seat if running else None
        humans = [seat for seat in (WHITE_SEAT, BLACK_SEAT) if session.players[seat] is None]
        mine = to_move is not None and isinstance(session._seats[to_move], FedSeat)
        legal = legal_texts(game, state) if mine else []
        ending = None if match.result is None else match.result.outcome
        aborted = ending is not None and ending.termination is Termination.ABORTED
        termination, winners = (
            (ending.termination.value, sorted(ending.winners))
            if ending is not None and not aborted
            else (None, None)
        )
        used = self._used_ms(session, to_move)
        data.update(
            {
                "seat_name": " and ".join(COLOURS[seat] for seat in humans),
                "game_id": match.game_id,
                "players": [
                    {
                        "seat": COLOURS[seat],
                        "name": session.names[seat],
                        "you": seat in humans,
                        "to_move": seat == to_move,
                        "winner": winners is not None and seat in winners,
                        "left_ms": None,
                        "used_ms": used[seat],
                    }
                    for seat in (WHITE_SEAT, BLACK_SEAT)
                ],
                "to_move": None if to_move is None else COLOURS[to_move],
                "your_turn": mine,
                "legal": legal,
                "legal_words": [pictures.move_words(view, text) for text in legal],
                "status": pictures.status(view, termination=termination, winners=winners),
                "html": pictures.html(view) + pictures.since_start_html(view, start, {}),
                "moves": self._move_list(session, state),
                "over": not running,
                "counting": to_move is not None,
                "waiting": self._waiting(session, to_move, mine),
            }
        )
        if match.result is not None and not aborted:
            players = [PlayerInfo(name) for name in session.names]
            data["result"] = result_words(game, players, match.result)
        return data

    def _used_ms(self, session: ConsoleSession, to_move: int | None) -> list[int]:
        """Each side's time used in the game (ms): its moves' times as the record keeps
        them, and the side to move's turn so far. The console's games have no time limit
        (docs/decisions.md, "The console page's clocks")."""
        assert session.match is not None
        used = [0.0, 0.0]
        for seat, _text, seconds, *_rest in session.match.history().recorded:
            used[seat] += seconds
        if to_move is not None:
            used[to_move] += time.monotonic() - self._since
        return [round(seconds * 1000) for seconds in used]

    def _waiting(self, session: ConsoleSession, to_move: int | None, mine: bool) -> str:
        if to_move is None:
            return "The game is over: start another at the terminal (game ...)."
        if mine:
            return ""
        name = session.names[to_move]
        return f"{COLOURS[to_move]} ({name}) to move: type move at the terminal to let it play."

    def _move_list(self, session: ConsoleSession, state: ChessState) -> list[str]:
        """The moves in SAN, numbered (``1. e4``, ``1... e5``), extending the last list."""
        fen, moves, words = self._moves
        if fen != state.start_fen or state.moves[: len(moves)] != moves:
            moves, words = (), []
        words = list(words)
        pictures = session.game.pictures
        board = chess.Board(state.start_fen)
        for text in moves:
            board.push_uci(text)
        for text in state.moves[len(moves) :]:
            before = {"fen": board.fen()}
            words.append(f"{pictures.move_number(before)} {pictures.move_words(before, text)}")
            board.push_uci(text)
        self._moves = (state.start_fen, tuple(state.moves), words)
        return words


async def serve_page(page: ConsolePage, out: Output, err: Output) -> None:
    """Run the page's commands one by one as they come (until cancelled)."""
    async for command in page.commands:
        await page.run_command(command, out, err)
