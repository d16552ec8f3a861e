"""``hub games history|show|export|stats`` through `hub.cli.main` on a temporary database,
and once through the installed ``hub`` command."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import time
from pathlib import Path

import chess
import chess.pgn
import pytest
import trio

from hub.cli import main
from hub.core.model.events import record_from_json, to_json
from hub.records import RecordStore
from hub.records.render import when
from tests.conftest import program
from tests.records.helpers import T0, chess_record, clubs_record, kalah_record, shapes, tictactoe

Capture = pytest.CaptureFixture[str]


@pytest.fixture
def db(tmp_path: Path) -> str:
    """A database with one game of each shape, and a tic-tac-toe game of a match."""
    path = tmp_path / "games.db"
    with RecordStore.open(path) as store:
        for record in shapes():
            store.add(record)
        store.add(trio.run(tictactoe, "xena", "otto"), match_id="m" * 32, index=0)
    return str(path)


def run(capfd: Capture, *args: str) -> tuple[int, str, str]:
    status = main(["games", *args])
    out, err = capfd.readouterr()
    return status, out, err


def test_games_alone_still_lists_the_installed_games(capfd: Capture) -> None:
    status, out, _ = run(capfd)
    assert status == 0
    assert [line.split()[0] for line in out.splitlines()][:2] == ["chess", "clubs"]


@pytest.mark.parametrize(
    ("command", "options"),
    [
        ("history", ["--game", "--player", "--limit", "--db"]),
        ("show", ["--delay", "--db"]),
        ("export", ["--game", "--player", "--format", "--output", "--db"]),
        ("stats", ["--game", "--db"]),
    ],
)
def test_help_lists_every_option_with_its_default(
    capfd: Capture, command: str, options: list[str]
) -> None:
    status, out, _ = run(capfd, command, "--help")
    assert status == 0
    section = out.split("options:\n")[1]
    entries = [" ".join(entry.split()) for entry in re.split(r"\n  (?=-)", section)]
    described = {}
    for entry in entries:
        if not entry.startswith("-h"):
            assert "(default: " in entry, entry
            described[entry.split()[0].rstrip(",")] = entry
    assert sorted(name if name != "-o" else "--output" for name in described) == sorted(options)


def test_usage_errors_exit_2(capfd: Capture, db: str) -> None:
    assert run(capfd, "frobnicate")[0] == 2
    assert run(capfd, "history", "--limit", "-1", "--db", db)[0] == 2
    assert run(capfd, "show", "--db", db)[0] == 2
    status, out, err = run(capfd, "export", "--format", "pgn", "--game", "kalah", "--db", db)
    assert (status, out) == (2, "")
    assert "PGN is for chess games; use --format jsonl for kalah" in err
    status, _, err = run(capfd, "show", "x", "--delay", "soon", "--db", db)
    assert status == 2 and "argument --delay: 'soon' is not a number of seconds" in err


def test_history(capfd: Capture, db: str) -> None:
    status, out, _ = run(capfd, "history", "--db", db)
    assert status == 0
    lines = out.splitlines()
    assert lines[0].split() == ["ended", "game", "players", "result", "termination", "moves", "id"]
    ids = [line.split()[-1] for line in lines[1:]]
    assert ids[1:] == ["c1ub5001", "ka1a0001", "c0ffee02", "c0ffee01"]  # newest first
    assert "xena vs otto" in lines[1]
    kalah = lines[3].split()
    # the result as the terminal and the pages say it (the winner's score first), not 1-0
    assert " ".join(kalah[2:]) == ("kalah south vs north North wins 7-5 on time timeout 2 ka1a0001")
    _, out, _ = run(capfd, "history", "--game", "chess", "--db", db)
    assert [line.split()[-1] for line in out.splitlines()[1:]] == ["c0ffee02", "c0ffee01"]
    _, out, _ = run(capfd, "history", "--player", "NORTH", "--db", db)
    assert [line.split()[-1] for line in out.splitlines()[1:]] == ["ka1a0001"]
    _, out, _ = run(capfd, "history", "--limit", "2", "--db", db)
    assert len(out.splitlines()) == 3
    _, out, _ = run(capfd, "history", "--player", "nobody", "--db", db)
    assert out.startswith("no games recorded in ") and out.endswith("(player nobody)\n")


def test_show_chess(capfd: Capture, db: str) -> None:
    status, out, _ = run(capfd, "show", "c0ffee01", "--db", db)
    assert status == 0
    lines = out.splitlines()
    assert lines[:6] == [
        "game c0ffee01: chess",
        "  White: alice (person), time 300+5",
        "  Black: ai:4 (ai), time 300+5",
        "  settings: rules=console level=4",
        f"  started {when(T0)}, lasted 1 min 00 s, 4 moves",
        "  result: Black wins (checkmate)",
    ]
    last = lines.index("4. Black ai:4: d8h4 (1.000 s)")
    assert lines[last + 1 : last + 12] == [
        "    8 r n b . k b n r",
        "    7 p p p p . p p p",
        "    6 . . . . . . . .",
        "    5 . . . . p . . .",
        "    4 . . . . . . P q",
        "    3 . . . . . P . .",
        "    2 P P P P P . . P",
        "    1 R N B Q K B N R",
        "      a b c d e f g h",
        "      White to move, checkmate",
        "result: Black wins (checkmate)",
    ]
    assert sum(line.startswith(("1. ", "2. ", "3. ", "4. ")) for line in lines) == 4


def test_show_kalah_clubs_and_an_unknown_game(capfd: Capture, db: str) -> None:
    _, out, _ = run(capfd, "show", "ka1a", "--db", db)  # an id prefix
    # seat 0 won; the pie swapped the sides, so it ends as North and the late seat as South
    assert "  result: North wins 7-5 on time (South (north): no move in 200 ms)" in out
    assert (
        "2. seat 1 north: P (0.020 s)\n"
        "         2  2  3    seat 1 north (holes 3..1)\n"
        "     0             1\n"
        "         2  2  0    seat 0 south (holes 1..3)\n"
        "        seat 0 to move, sides swapped (pie rule)\n"
    ) in out
    _, out, _ = run(capfd, "show", "c1ub5001", "--db", db)
    assert "  settings: winscore=10 decks=[1 item] time_ms=0" in out
    assert (
        "1. player A clubber: 2C (0.001 s)\n"
        "    Round 1, first to 10\n"
        "     L A clubber    0  AS\n"
        "      >B p2         3  3C KD\n"
        "       C p3        10  4C 10H\n"
        "      trick: 2C\n"
    ) in out
    with RecordStore.open(db) as store:
        [played] = store.games(game="tictactoe")
    _, out, _ = run(capfd, "show", played.game_id, "--db", db)
    assert f"  match: {'m' * 32}, game index 0" in out
    assert "1. seat 0 xena: 0 (" in out and '    "X........"\n' in out


def test_show_errors(capfd: Capture, db: str, tmp_path: Path) -> None:
    status, _, err = run(capfd, "show", "nothing", "--db", db)
    assert status == 1 and "no game 'nothing' in" in err
    status, _, err = run(capfd, "show", "c", "--db", db)  # c0ffee01, c0ffee02, c1ub5001
    assert status == 1 and "'c' is the start of several games' ids: " in err
    # the tic-tac-toe game's id is random and may start with c too: check the list, in order
    listed = err.split("ids: ")[1].strip().split(", ")
    assert listed == sorted(listed) and all(ident.startswith("c") for ident in listed)
    assert {"c0ffee01", "c0ffee02", "c1ub5001"} <= set(listed)
    status, _, err = run(capfd, "show", "c0ffee01", "--db", str(tmp_path / "none.db"))
    assert status == 1 and "does not exist" in err
    assert not (tmp_path / "none.db").exists()
    (tmp_path / "junk.db").write_bytes(b"junk" * 1000)
    status, _, err = run(capfd, "history", "--db", str(tmp_path / "junk.db"))
    assert status == 1 and "cannot use the records database" in err


def test_show_waits_between_moves(capfd: Capture, db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []
    monkeypatch.setattr(time, "sleep", waits.append)
    assert run(capfd, "show", "c0ffee01", "--delay", "0.5", "--db", db)[0] == 0
    assert waits == [0.5] * 4  # after the start and each move but the last
    waits.clear()
    run(capfd, "show", "c0ffee01", "--db", db)
    assert waits == []


def test_export_jsonl(capfd: Capture, db: str, tmp_path: Path) -> None:
    status, out, _ = run(capfd, "export", "--db", db)
    assert status == 0
    lines = out.splitlines()
    assert len(lines) == 5
    records = [record_from_json(json.loads(line)) for line in lines]
    assert [record.game_id for record in records[:4]] == [r.game_id for r in shapes()]
    assert [to_json(record) for record in records[:4]] == [to_json(r) for r in shapes()]
    target = tmp_path / "kalah.jsonl"
    status, out, err = run(capfd, "export", "--game", "kalah", "-o", str(target), "--db", db)
    assert (status, out) == (0, "")
    assert f"1 game(s) written to {target}" in err
    assert record_from_json(json.loads(target.read_text())) == kalah_record()


def test_export_pgn_reads_back(capfd: Capture, db: str, tmp_path: Path) -> None:
    with RecordStore.open(db) as store:
        store.add(
            chess_record(["e2e4"], game_id="matchgame", ended=T0 + 500), match_id="M", index=6
        )
    target = tmp_path / "games.pgn"
    status, _, _ = run(capfd, "export", "--format", "pgn", "-o", str(target), "--db", db)
    assert status == 0
    handle = io.StringIO(target.read_text())
    games = []
    while (game := chess.pgn.read_game(handle)) is not None:
        games.append(game)
    assert len(games) == 3  # only the chess games
    mate, setup, match = games
    assert not mate.errors and not setup.errors
    assert dict(mate.headers) | {"Date": "?"} == {
        "Event": "hub chess",
        "Site": "hub",
        "Date": "?",
        "Round": "-",
        "White": "alice",
        "Black": "ai:4",
        "Result": "0-1",
        "Termination": "normal",
        "WhiteType": "human",
        "BlackType": "program",
        "TimeControl": "300+5",
        "HubGameId": "c0ffee01",
        "HubTermination": "normal",
        "HubDetail": "checkmate",
        "HubTimeControl": "300+5 / 300+5",
    }
    assert mate.headers["Date"] == when(T0 + 0)[:10].replace("-", ".")
    assert [move.uci() for move in mate.mainline_moves()] == ["f2f3", "e7e5", "g2g4", "d8h4"]
    assert mate.end().board().is_checkmate()
    assert "1. f3 e5 2. g4 Qh4# 0-1" in target.read_text()
    assert setup.headers["SetUp"] == "1"
    assert setup.headers["FEN"] == "4k3/8/8/8/8/8/8/4K3 w - - 0 1"
    assert setup.headers["Result"] == "1/2-1/2"
    assert [move.uci() for move in setup.mainline_moves()] == ["e1e2"]
    assert (match.headers["Event"], match.headers["Round"]) == ("hub match", "7")
    assert match.headers["HubMatchId"] == "M"
    assert "SetUp" not in mate.headers


def test_export_pgn_of_faults_and_bad_moves(capfd: Capture, tmp_path: Path) -> None:
    from hub.core.model.events import FaultInfo
    from hub.core.model.referee import Termination

    path = str(tmp_path / "faults.db")
    with RecordStore.open(path) as store:
        store.add(
            chess_record(
                ["e2e4"],
                game_id="late",
                winners=[0],
                termination=Termination.ILLEGAL_MOVE,
                detail="",
                fault=FaultInfo(1, Termination.ILLEGAL_MOVE, "not a legal move", "e8e1"),
            )
        )
    status, out, _ = run(capfd, "export", "--format", "pgn", "--db", path)
    assert status == 0
    game = chess.pgn.read_game(io.StringIO(out))
    assert game is not None
    assert game.headers["Termination"] == "rules infraction"
    assert game.headers["HubDetail"] == "not a legal move"
    assert game.end().comment == "illegal move: e8e1"


def test_stats(capfd: Capture, db: str) -> None:
    with RecordStore.open(db) as store:
        for n, winners in enumerate([[0], [0], [0, 1], [1]]):
            store.add(chess_record(game_id=f"more{n}", winners=winners, white="bob"))
    status, out, _ = run(capfd, "stats", "--game", "chess", "--db", db)
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "chess: 6 game(s)"
    assert lines[1].split() == ["player", "games", "W", "D", "L", "score", "Elo", "identity"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[2:]}
    assert rows["ai:4"][:5] == ["6", "2", "2", "2", "50.0%"]
    assert rows["bob"][:5] == ["4", "2", "1", "1", "62.5%"]
    assert rows["alice"][:5] == ["2", "0", "1", "1", "25.0%"]
    assert int(rows["bob"][5]) > int(rows["ai:4"][5]) > int(rows["alice"][5])
    assert [rows[name][6] for name in ("ai:4", "bob", "alice")] == [
        "chess/ai:4", "person:bob", "person:alice"
    ]  # fmt: skip
    status, out, _ = run(capfd, "stats", "--db", db)
    titles = [line for line in out.splitlines() if line and not line.startswith(" ")]
    assert titles == ["chess: 6 game(s)", "clubs: 1 game(s)", "kalah: 1 game(s)",
                      "tictactoe: 1 game(s)"]  # fmt: skip


def test_an_empty_or_missing_database(capfd: Capture, tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.db")
    for command in ("history", "stats"):
        status, out, _ = run(capfd, command, "--db", missing)
        assert status == 0 and "does not exist" in out
    status, out, err = run(capfd, "export", "--db", missing)
    assert (status, out) == (0, "") and "does not exist" in err
    assert not Path(missing).exists()


@pytest.mark.e2e
def test_the_installed_command_reads_hub_db(db: str, tmp_path: Path) -> None:
    env = {**os.environ, "HUB_DB": db}
    result = subprocess.run(
        [program("hub"), "games", "history", "--game", "clubs"],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1].split()[-1] == clubs_record().game_id
    shown = subprocess.run(
        [program("hub"), "games", "show", "c1ub", "--db", db],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert shown.returncode == 0 and "result: A wins 0-3-10\n" in shown.stdout
    head = subprocess.run(
        f"{program('hub')} games export --db {db} | head -c 10",
        shell=True, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert head.stdout == '{"game_id"' and "Traceback" not in head.stderr


def test_record_options(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import argparse

    from hub.records import add_record_options, record_path

    parser = argparse.ArgumentParser()
    add_record_options(parser)
    monkeypatch.setenv("HUB_DB", str(tmp_path / "env.db"))
    assert record_path(parser.parse_args([])) == tmp_path / "env.db"
    assert record_path(parser.parse_args(["--db", "~/x.db"])) == Path.home() / "x.db"
    assert record_path(parser.parse_args(["--no-record"])) is None
    assert "--no-record" in parser.format_help() and "(default: $HUB_DB" in parser.format_help()


def test_export_the_games_named_by_id(capfd: Capture, db: str, tmp_path: Path) -> None:
    status, out, err = run(capfd, "export", "ka1a", "c0ffee02", "--db", db)  # a start, an id
    assert (status, err) == (0, "")
    assert [json.loads(line)["game_id"] for line in out.splitlines()] == ["ka1a0001", "c0ffee02"]
    status, out, err = run(capfd, "export", "c0ffee01", "--format", "pgn", "--db", db)
    assert status == 0 and out.startswith('[Event "') and '[Result "0-1"]' in out
    status, out, err = run(capfd, "export", "ka1a", "--format", "pgn", "--db", db)
    assert (status, out) == (2, "")
    assert "PGN is for chess games; use --format jsonl for kalah" in err
    status, out, err = run(capfd, "export", "c0ffee", "--db", db)
    assert (status, out) == (1, "") and "is the start of several games' ids: c0ffee01" in err
    status, out, err = run(capfd, "export", "ka1a", "nosuch", "--db", db)
    assert (status, out) == (1, "") and "no game 'nosuch' in " in err
    status, out, err = run(capfd, "export", "ka1a", "--game", "kalah", "--db", db)
    assert (status, out) == (2, "") and "by ID or select them with --game/--player" in err
    status, out, err = run(capfd, "export", "ka1a", "--db", str(tmp_path / "missing.db"))
    assert (status, out) == (1, "") and "does not exist" in err


@pytest.mark.e2e
def test_the_installed_command_exports_one_game(db: str) -> None:
    done = subprocess.run(
        [program("hub"), "games", "export", "c1ub5001", "--db", db],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")
    assert record_from_json(json.loads(done.stdout)) == clubs_record()
