"""``hub play chess`` records every finished game (``--db PATH``), unless ``--no-record``."""

from __future__ import annotations

from pathlib import Path

import chess
import pytest

from hub.chess.pgn import pgn_text
from hub.core.model.bus import EventBus
from hub.core.model.events import GameRecord
from hub.core.model.referee import Termination
from hub.games.chess.console import ConsoleOptions, open_console, parse_options
from hub.records.recording import recording
from hub.web.index import GameIndex
from hub.web.views import LiveGame, detail, position
from tests.chess.helpers import run_program
from tests.records.stored import stored_records

FOOLS_MATE = b"game human human\nmove f2 f3\nmove e7 e5\nmove g2 g4\nmove d8 h4\n"
UNABLE = "unable to open database file"


def test_record_options() -> None:
    assert ConsoleOptions().record_path is not None  # recording is the default
    assert parse_options(["--db", "~/x.db"]) == ConsoleOptions(db="~/x.db")
    assert ConsoleOptions(db="~/x.db").record_path == Path.home() / "x.db"
    assert parse_options(["--no-record", "--gui"]) == ConsoleOptions(gui=True, no_record=True)
    assert ConsoleOptions(no_record=True).record_path is None
    for bad in (["--db"], ["--db", ""], ["--db", "a", "--db", "b"], ["--no-record"] * 2):
        assert parse_options(bad) is None, bad


def test_a_console_game_is_recorded_in_the_database_given(
    tmp_path: Path, records_database: Path
) -> None:
    path = tmp_path / "console.db"
    # a second game, cut by the end of input, is aborted: not recorded
    done = run_program(["play", "chess", "--db", str(path)], FOOLS_MATE + b"game human human\n")
    assert done.returncode == 0 and b"Checkmate" in done.stdout, done
    (record,) = stored_records(path)
    assert record.game == "chess" and record.termination is Termination.NORMAL
    assert [move.move for move in record.moves] == ["f2f3", "e7e5", "g2g4", "d8h4"]
    assert record.winners == (1,)
    assert not records_database.exists()


def test_by_default_into_hub_db_and_not_at_all_with_no_record(records_database: Path) -> None:
    assert run_program(["play", "chess"], FOOLS_MATE).returncode == 0
    assert [record.game for record in stored_records(records_database)] == ["chess"]
    records_database.unlink()
    assert run_program(["play", "chess", "--no-record"], FOOLS_MATE).returncode == 0
    assert not records_database.exists()


def test_an_unusable_database_is_one_line_and_the_game_goes_on(tmp_path: Path) -> None:
    done = run_program(["play", "chess", "--classic", "--db", str(tmp_path)], FOOLS_MATE)
    assert done.returncode == 0
    assert done.stdout == run_program(["play", "chess", "--classic"], FOOLS_MATE).stdout
    reason = f"cannot record games in {tmp_path} ({UNABLE}); playing on without recording"
    assert done.stderr.decode() == f"hub play chess: {reason}\n"


# -- undo: the record holds the game as it stands at its end (issue 20, item 2) -----------

UNDO_SESSIONS = {
    # name: (the commands, separated by "; ", the last one ending the game; the history)
    "people": (  # the issue's session: one undo between two people
        "game human human; move e2 e4; move e7 e5; move g1 f3; undo; move b1 c3; resign",
        "1. e4 e5 2. Nc3",
    ),
    "computer pair": (  # undo takes back the computer's reply and the person's move
        "game human computer1; move e2 e4; move; move d2 d4; move; undo; move g1 f3; move; resign",
        None,
    ),
    "at the start": (  # undo at the start is refused; undo back to the start
        "game human human; undo; move e2 e4; undo; move d2 d4; move d7 d5; resign",
        "1. d4 d5",
    ),
    "chained, to mate": (  # undo after undo, then checkmate
        "game human human; move f2 f3; move e7 e5; move g2 g4; undo; undo; move e7 e6;"
        " move g2 g4; move d8 h4",
        "1. f3 e6 2. g4 Qh4#",
    ),
    "computer twice": (  # the person's own move, then a computer pair
        "game computer1 human; move; move e7 e5; move; move d7 d6; undo; undo; move d7 d5;"
        " move; resign",
        None,
    ),
    "computers, set up": (  # one move a time; from a set-up position (its FEN recorded)
        "setup; + K e1; + R h1; + k e8; + p a7; done; game computer1 computer1; move; move;"
        " move; undo; move; resign",
        None,
    ),
}


def start_board(record: GameRecord) -> chess.Board:
    assert isinstance(record.initial_state, dict)
    return chess.Board(str(record.initial_state["fen"]))


def san_line(record: GameRecord) -> str:
    """The record's moves as the console's ``history`` prints them (SAN, numbered)."""
    moves = [chess.Move.from_uci(move.move) for move in record.moves]
    return start_board(record).variation_san(moves)


async def play_recorded(lines: list[str], path: Path) -> tuple[list[str], list[str], GameIndex]:
    """Play ``lines`` in a seeded console that records into ``path`` and feeds a web index;
    the output of ``history`` just before the last line and just after it."""
    bus = EventBus()
    index = GameIndex(bus)
    bus.listen(index.apply)
    async with recording(bus, path, prog="test") as recorded:
        assert recorded
        async with open_console(ConsoleOptions(seed=7), bus=bus) as console:
            for line in lines[:-1]:
                await console.handle(line)
            before = await console.handle("history")
            live = index.game(index.series["console"].game_id or "")
            assert isinstance(live, LiveGame) and console.state is not None
            # the live page shows the whole game so far, from its start
            assert [moved.move for moved in live.moves if moved] == list(console.state.moves)
            assert live.initial == {"fen": console.state.start_fen} | live.initial
            await console.handle(lines[-1])
            after = await console.handle("history")
            await console.finish()
    return before, after, index


@pytest.mark.parametrize("name", UNDO_SESSIONS)
async def test_after_undo_the_record_holds_the_game_the_console_shows(
    name: str, tmp_path: Path
) -> None:
    script, expected = UNDO_SESSIONS[name]
    lines = script.split("; ")
    last = lines[-1]
    path = tmp_path / "undo.db"
    before, after, index = await play_recorded(lines, path)
    (record,) = stored_records(path)  # the undone parts are not games of their own
    assert [san_line(record)] == after
    assert after == before if last == "resign" else after[0].startswith(before[0] + " ")
    if expected is not None:
        assert after == [expected]
    assert record.termination is not Termination.ABORTED
    assert record.detail == ("checkmate" if "#" in after[0] else "")
    # the set-up position is the record's start, else the initial position
    start = start_board(record)
    assert (start.board_fen() == chess.Board().board_fen()) == ("setup" not in lines)
    # hub games export --format pgn: the same moves
    movetext = pgn_text(record).split("\n\n")[1]
    assert " ".join(movetext.split()) == f"{after[0]} {record.result_text()}"
    # the web page and its replay: every ply of the game, from its start
    game = index.finished[record.game_id]
    page = detail(game)
    assert page["ply"] == len(record.moves)
    assert isinstance(page["moves"], list)
    assert [move["move"] for move in page["moves"] if isinstance(move, dict)] == [
        move.move for move in record.moves
    ]
    assert game == record  # the web view's record is the stored one
    board = start.copy()
    for ply, move in enumerate(record.moves, 1):
        board.push_uci(move.move)
        at = position(game, ply)
        assert at is not None and isinstance(at.view, dict) and at.view["fen"] == board.fen()


def test_the_issues_session_through_the_installed_program(records_database: Path) -> None:
    lines = [*UNDO_SESSIONS["people"][0].split("; "), "history"]
    done = run_program(["play", "chess"], "".join(f"{line}\n" for line in lines).encode())
    assert done.returncode == 0, done
    assert b"\n1. e4 e5 2. Nc3\nFinal Score:\n" in done.stdout
    (record,) = stored_records(records_database)
    assert san_line(record) == "1. e4 e5 2. Nc3"
    assert [move.move for move in record.moves] == ["e2e4", "e7e5", "b1c3"]
    history = run_program(["games", "history"], b"")
    assert history.returncode == 0 and b"resignation      3  " in history.stdout, history
