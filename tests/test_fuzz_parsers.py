"""Every parser of every program, fuzzed: only its declared error (or "invalid" result) escapes.

Each test feeds a parser three kinds of input (`lines_like`): arbitrary text, arbitrary bytes
decoded the way the program decodes them (Latin-1, as `hub.core.io.lines.LineStream` and the deck
file reader do, so every byte value arrives), and valid lines of that protocol cut, spliced
with junk or reassembled from their own words, which reaches the branches that a purely random
string never does (``Nodes searched: ²`` was such a crash). The declared outcomes are the ones
the parsers' docstrings promise; docs/reliability.md ("Fuzzing") lists them. Runs are
derandomized so that CI is deterministic.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Sequence

import chess
import trio
import trio.testing
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from hub.chess import uci
from hub.core.io.lines import LineError, LineStream, LineTooLong, iter_lines
from hub.core.io.text import is_printable_ascii
from hub.core.play.seats import BadMoveLine
from hub.games.chess.console import Console, ConsoleOptions
from hub.games.clubs import player as clubber
from hub.games.clubs.cards import CARD_TEXT, DeckError, parse_card_list, parse_deck_file
from hub.games.clubs.codec import ClubsCodec
from hub.games.clubs.game import ClubsGame
from hub.games.clubs.protocol import (
    BadClubsMessage,
    HubMessage,
    PlayerArgsError,
    parse_hub_message,
    parse_play,
    parse_player_args,
)
from hub.games.clubs.rules import new_game
from hub.games.kalah import protocol as kp
from hub.games.kalah.codec import KalahCodec
from hub.games.kalah.rules import new_game as new_kalah
from hub.games.uqchess import client as uqclient
from hub.games.uqchess import protocol as up

FUZZ = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
"""~200 examples, no deadline (CI machines are shared), the same examples on every run."""

ODD = ["", " ", "  ", "\t", "\r", "\x00", "\xff", "²", "٣", "é", "-1", "+1", "0", "007", "9" * 30]
"""Fragments that parsers of whole numbers and exact words trip over."""


def splice(parts: tuple[str, str, int | None]) -> str:
    line, junk, at = parts
    at = len(line) if at is None else at % (len(line) + 1)
    return line[:at] + junk + line[at:]


def cut(parts: tuple[str, int]) -> str:
    line, at = parts
    return line[: at % (len(line) + 1)]


def lines_like(examples: Sequence[str]) -> st.SearchStrategy[str]:
    """Junk, decoded bytes, and valid ``examples`` cut, spliced or rebuilt from their words."""
    words = sorted({word for line in examples for word in line.split(" ")} | set(ODD))
    return st.one_of(
        st.text(max_size=80),
        st.binary(max_size=80).map(lambda data: data.decode("latin-1")),
        st.sampled_from(list(examples)),
        st.tuples(
            st.sampled_from(list(examples)),
            st.sampled_from(ODD) | st.text(max_size=6),
            st.none() | st.integers(),  # None: at the end
        ).map(splice),
        st.tuples(st.sampled_from(list(examples)), st.integers()).map(cut),
        st.lists(st.sampled_from(words), max_size=8).map(" ".join),
    )


def only(error: type[BaseException] | tuple[type[BaseException], ...]) -> contextlib.suppress:
    """The parser's declared error is allowed; anything else fails the test."""
    return contextlib.suppress(error)


# -- clubs: deck files ----------------------------------------------------------------------

DECK = ",".join(CARD_TEXT)
DECK_LINES = [DECK, ".", "# comment", "", " , ".join(CARD_TEXT[:13]) + " ,\r", "2S,3S,", "10H"]


@FUZZ
@given(
    st.one_of(
        st.text(max_size=400),
        st.binary(max_size=400).map(lambda data: data.decode("latin-1")),
        st.lists(lines_like(DECK_LINES), max_size=12).map("\n".join),
    )
)
def test_deck_files_raise_only_deck_error(text: str) -> None:
    with only(DeckError):
        decks = parse_deck_file(text)
        assert decks and all(len(deck) == 52 for deck in decks)


# -- clubs: the player's side (hub messages, arguments, the whole clubber loop) -------------

HUB_LINES = [
    "newround " + ",".join(CARD_TEXT[:26]),
    "newround 2S",
    "newtrick",
    "yourturn",
    "played AH",
    "trickover",
    "scores 12,1",
    "scores 0,0,0,0",
    "end",
]


@FUZZ
@given(lines_like(HUB_LINES))
def test_hub_messages_raise_only_bad_message(line: str) -> None:
    with only(BadClubsMessage):
        assert isinstance(parse_hub_message(line), HubMessage)


@FUZZ
@given(st.lists(st.sampled_from(HUB_LINES) | lines_like(HUB_LINES), max_size=30))
def test_the_player_state_machine_raises_only_bad_message(lines: list[str]) -> None:
    me = clubber.Player(2, 0)
    for line in lines:
        if line == "end":
            break
        try:
            card = me.handle(parse_hub_message(line))
        except BadClubsMessage:
            break
        assert card is None or 0 <= card < 52
        assert me.report().count("\n") == 6


@FUZZ
@given(st.lists(lines_like(HUB_LINES).map(str.encode), max_size=12))
def test_clubber_ends_with_a_spec_status_on_any_input(lines: list[bytes]) -> None:
    written: list[tuple[int, bytes]] = []
    data = b"\n".join(lines)
    original = clubber.write_all
    clubber.write_all = lambda fd, chunk: written.append((fd, chunk))  # type: ignore[assignment]
    try:
        status = clubber.play(2, 0, io.BytesIO(data))
    finally:
        clubber.write_all = original
    assert status in (0, 4, 5)
    errors = b"".join(chunk for fd, chunk in written if fd == 2)
    ending = {0: b"From hub:end\n", 4: b"Unexpected loss of hub\n", 5: b"Bad message from hub\n"}
    assert errors.endswith(ending[status])


@FUZZ
@given(st.lists(lines_like(["2", "3", "4", "A", "B", "C", "D"]), max_size=3))
def test_player_arguments_raise_only_their_error(args: list[str]) -> None:
    try:
        players, seat = parse_player_args(args)
    except PlayerArgsError as exc:
        assert exc.status in (1, 2, 3)
    else:
        assert 2 <= players <= 4 and 0 <= seat < players


# -- clubs: the hub's side (a player's plays) -----------------------------------------------


@FUZZ
@given(lines_like(["AH", "2S", "TD", "-", "-2D", "10H"]))
def test_plays_are_a_card_or_bad_move_line(line: str) -> None:
    card = parse_play(line)
    assert card is None or CARD_TEXT[card] == line
    state = new_game([tuple(range(52))], 2, 10)
    with only(BadMoveLine):
        assert ClubsCodec().parse_move(0, line, state) == card
    assert ClubsGame().to_move(state) == 0
    assert parse_card_list(line) is None or all(0 <= c < 52 for c in parse_card_list(line) or ())


# -- Kalah ------------------------------------------------------------------------------------

KALAH_LINES = [
    "WELCOME",
    "INFO 6 4 5000 F S",
    "INFO 4 3 0 S R 3 3 3 3",
    "READY",
    "BEGIN",
    "OK",
    "3 6 1",
    "P",
    "ILLEGAL",
    "TIME",
    "WINNER",
    "LOSER",
    "TIE",
]


@FUZZ
@given(lines_like(KALAH_LINES), st.integers(1, 20))
def test_kalah_parsers_raise_only_bad_line(line: str, holes: int) -> None:
    with only(kp.BadLine):
        move = kp.parse_move(line, holes)
        assert kp.parse_move(kp.format_move(move), holes) == move
    with only(kp.BadLine):
        info = kp.parse_info(line)
        assert kp.parse_info(kp.format_info(info)) == info
    with only(kp.BadLine):
        kp.parse_server_line(line, holes)
    with only(kp.BadLine):
        kp.parse_server_line(line, None)
    with only(kp.BadLine):
        kp.parse_script(line.replace(" ", ","), holes)
    kp.is_word(line, "OK")
    assert is_printable_ascii(kp.safe_text(line).removesuffix("..."))


@FUZZ
@given(lines_like(KALAH_LINES))
def test_kalah_codec_reads_a_move_or_raises_bad_move_line(line: str) -> None:
    state = new_kalah(6, 4)
    codec = KalahCodec(kp.max_line(6, 4))
    with only(BadMoveLine):
        codec.parse_move(0, line, state)
    assert codec.check_ack(1, line) in (True, False)


# -- UQChess ------------------------------------------------------------------------------

UQ_COMMANDS = [
    "start computer white",
    "start human either",
    "board",
    "hint best",
    "hint all",
    "move e7e8q",
    "move e2e4",
    "resign",
]
UQ_MESSAGES = [
    "started white",
    "ok",
    "moved e2e4",
    "check",
    "gameover checkmate black",
    "gameover stalemate",
    "startboard",
    "endboard",
    "error engine",
    "moves e2e4 d2d4",
]
UQ_USER = ["newgame", "print", "hint", "possible", "move e2e4", "resign", "quit"]


@FUZZ
@given(lines_like(UQ_COMMANDS))
def test_uqchess_commands_are_a_command_or_none(line: str) -> None:
    command = up.parse_command(line)
    if command is not None:
        assert up.format_command(command) == line


@FUZZ
@given(lines_like(UQ_MESSAGES))
def test_uqchess_messages_never_raise(line: str) -> None:
    assert up.parse_message(line) is not None


@FUZZ
@given(st.lists(lines_like(UQ_USER + UQ_MESSAGES), max_size=30), st.booleans())
def test_uqchess_client_session_takes_any_line_from_either_side(
    lines: list[str], versus_human: bool
) -> None:
    options = uqclient.parse_args(["1", "--versus", "human" if versus_human else "computer"])
    assert options is not None
    session = uqclient.ClientSession(options)
    for index, line in enumerate(lines):
        if index % 2:
            shown = session.on_server_line(line)
            assert shown is None or shown == line
        else:
            action = session.on_user_line(line)
            assert action.send is None or up.parse_command(action.send) is not None


@FUZZ
@given(st.lists(lines_like(["1234", "--versus", "human", "--colour", "black"]), max_size=5))
def test_uqchess_client_arguments_are_options_or_usage(args: list[str]) -> None:
    options = uqclient.parse_args(args)
    assert options is None or options.port == args[0]


# -- UCI: what an engine prints, and what a GUI sends an engine ------------------------------

ENGINE_LINES = [
    "readyok",
    "uciok",
    "id name Stockfish 15.1",
    "option name Skill Level type spin default 20 min 0 max 20",
    "bestmove e2e4 ponder e7e5",
    "bestmove e7e8q",
    "bestmove (none)",
    "info depth 1 score cp 20 pv e2e4",
    "e2e4: 1",
    "a7a8q: 1",
    "Nodes searched: 20",
    "Nodes searched: 2",
    " +---+---+---+---+---+---+---+---+",
    " | r | n | b | q | k | b | n | r | 8",
    "   a   b   c   d   e   f   g   h",
    "Checkers: ",
]
READERS: list[Callable[[], uci.Reader[object]]] = [
    uci.HandshakeReader,
    lambda: uci.HandshakeReader(ready=True),
    uci.ReadyReader,
    uci.BestMoveReader,
    uci.PerftReader,
    uci.BoardReader,
]


@FUZZ
@given(st.lists(lines_like(ENGINE_LINES), max_size=30))
def test_engine_output_readers_raise_only_engine_protocol_error(lines: list[str]) -> None:
    for make in READERS:
        reader = make()
        with only(uci.EngineProtocolError):
            for line in lines:
                if reader.feed(line):
                    break


@FUZZ
@given(lines_like(ENGINE_LINES))
@example("Nodes searched: 2²")  # was a ValueError from int()
def test_engine_output_readers_take_any_one_line(line: str) -> None:
    for make in READERS:
        with only(uci.EngineProtocolError):
            make().feed(line)


GUI_LINES = [
    "startpos moves e2e4 e7e5",
    "fen 8/8/8/8/8/8/8/K6k w - - 0 1 moves a1a2",
    "fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "fen 4k3/P7/8/8/8/8/8/4K3 w - - 0 1 moves a7a8Q",
    "movetime 500 depth 15",
    "wtime 1000 btime -5 winc 10 binc 10 movestogo 3",
    "perft 1",
    "infinite",
    "mate 3 nodes 99",
]


@FUZZ
@given(lines_like(GUI_LINES))
def test_gui_commands_parse_or_raise_only_position_error(line: str) -> None:
    words = line.split()
    go = uci.parse_go(words)
    again = uci.parse_go(go.command().split()[1:])  # increments go with a clock only
    assert [again.limits(turn) for turn in chess.COLORS] == [go.limits(t) for t in chess.COLORS]
    with only(uci.PositionError):
        board = uci.parse_position(words)
        assert board is None or board.is_valid() or board.status() != 0
    board = chess.Board()
    for word in words:
        move = uci.legal_move(board, word)
        assert move is None or move in board.legal_moves


# -- the chess console's commands ---------------------------------------------------------

CONSOLE_LINES = [
    "game human human",
    "game computer1 human",
    "move e2 e4",
    "move e7 e8 q",
    "move Nf3",
    "move",
    "resign",
    "setup",
    "+ K e1",
    "+ k e8",
    "- e1",
    "= black",
    "done",
    "undo",
    "history",
    "hint",
    "help",
]


@FUZZ
@given(
    st.sampled_from(["idle", "game", "setup"]),
    st.lists(lines_like(CONSOLE_LINES), max_size=8),
)
def test_console_answers_any_command_in_every_mode(mode: str, lines: list[str]) -> None:
    with contextlib.closing(Console(ConsoleOptions(seed=0, nodes=100))) as console:
        if mode == "game":
            console.handle("game human computer1")
        elif mode == "setup":
            console.handle("setup")
        for line in lines:
            out = console.handle(line)
            assert all(isinstance(text, str) and "\n" not in text for text in out)
        assert console.finish()[0] == "Final Score:"


# -- the line reader ------------------------------------------------------------------------


@FUZZ
@given(
    st.lists(st.binary(max_size=40), max_size=8),
    st.integers(1, 30),
    st.integers(1, 16),
)
def test_the_line_reader_raises_only_line_errors_and_stays_bounded(
    chunks: list[bytes], max_line: int, chunk: int
) -> None:
    data = b"".join(chunks)

    async def main() -> list[str | LineTooLong]:
        send, receive = trio.testing.memory_stream_one_way_pair()
        stream = LineStream(receive, None, max_line=max_line, chunk=chunk)
        for piece in chunks:
            await send.send_all(piece)
        await send.aclose()
        got: list[str | LineTooLong] = []
        with only(LineError):
            async for item in iter_lines(stream, final_partial=True):
                got.append(item)
                assert len(stream._buffer) <= max_line + chunk
        return got

    got = trio.run(main)
    expected = data.split(b"\n")
    if expected[-1] == b"":
        expected.pop()
    short = [line.decode("latin-1") for line in expected if len(line) <= max_line]
    assert [item for item in got if isinstance(item, str) and len(item) <= max_line] == short
    assert all(isinstance(item, LineTooLong) or len(item) <= max_line for item in got)
