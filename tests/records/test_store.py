"""RecordStore: round trips of every game shape, queries, idempotence, the versioned schema,
WAL, several writer processes at once and a writer killed with SIGKILL."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest

from hub.core.model.events import to_json
from hub.core.model.referee import Termination
from hub.records import RecordStore, SchemaTooNew, default_db_path
from hub.records.render import result_words, summary_words
from hub.records.store import (
    MIGRATIONS,
    PLAYED_ON,
    SCHEMA_VERSION,
    connect,
    migrate,
    schema_version,
)
from tests.records.helpers import T0, chess_record, kalah_record, shapes, tictactoe

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RecordStore]:
    with RecordStore.open(tmp_path / "games.db") as opened:
        yield opened


def test_default_path_follows_hub_db_then_xdg(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUB_DB", "/tmp/x/records.db")
    assert default_db_path() == Path("/tmp/x/records.db")
    monkeypatch.delenv("HUB_DB")
    monkeypatch.setenv("XDG_DATA_HOME", "/data")
    assert default_db_path() == Path("/data/hub/games.db")
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_db_path() == Path.home() / ".local/share/hub/games.db"


def test_open_creates_directories_wal_full_sync(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "games.db"
    with RecordStore.open(path) as store:
        assert store.count() == 0
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)  # persistent in the file
    assert schema_version(db) == SCHEMA_VERSION == 5
    db.close()
    db = connect(path)
    assert db.execute("PRAGMA synchronous").fetchone() == (2,)  # FULL
    assert db.execute("PRAGMA busy_timeout").fetchone() == (10_000,)
    db.close()


async def test_every_shape_round_trips(store: RecordStore) -> None:
    records = [*shapes(), await tictactoe("ann", "bob")]
    for record in records:
        store.add(record)
    for record in records:
        assert store.get(record.game_id) == record
        assert to_json(store.get(record.game_id)) == to_json(record)  # type: ignore[arg-type]
    assert store.get("no-such-game") is None


def test_summaries_newest_first_and_filters(store: RecordStore) -> None:
    chess_a = chess_record(game_id="aaaa1111", ended=T0 + 10)
    chess_b = chess_record(game_id="aaaa2222", white="Bob", ended=T0 + 30)
    kalah = kalah_record(game_id="bbbb1111", ended=T0 + 20)
    for record in (chess_a, kalah, chess_b):
        store.add(record)
    assert [game.game_id for game in store.games()] == ["aaaa2222", "bbbb1111", "aaaa1111"]
    summary = store.games(game="kalah")[0]
    assert attrs.asdict(summary) == {
        "game_id": "bbbb1111",
        "game": "kalah",
        "players": ("south", "north"),
        "result": "1-0",
        "termination": "timeout",
        "moves": 2,
        "started_at": T0 + 15,
        "ended_at": T0 + 20,
        "match_id": None,
        "index": None,
        "winners": (0,),
        "identities": ("kalah/ai:2", "remote:anonymous"),
        "scores": (7, 5),
        "detail": "",
        "fault": "timeout",
        "final_state": to_json(kalah)["final_state"],
    }
    assert [game.game_id for game in store.games(game="chess")] == ["aaaa2222", "aaaa1111"]
    assert [game.game_id for game in store.games(player="bob")] == ["aaaa2222"]  # any case
    assert [game.game_id for game in store.games(player="ALICE")] == ["aaaa1111"]
    assert [game.game_id for game in store.games(player="ai:4", limit=1)] == ["aaaa2222"]
    assert store.games(game="kalah", player="alice") == []
    assert store.games(game="go") == []


def test_prefixes(store: RecordStore) -> None:
    for game_id in ("ab12", "ab34", "ab3", "c%_d"):
        store.add(chess_record(game_id=game_id))
    assert store.get("ab1") is not None and store.get("ab1").game_id == "ab12"  # type: ignore[union-attr]
    assert store.get("ab") is None  # ambiguous
    assert store.ids("ab") == ["ab12", "ab3", "ab34"]
    got = store.get("ab3")  # an exact id wins over the longer ids it starts
    assert got is not None and got.game_id == "ab3"
    assert store.ids("ab3") == ["ab3", "ab34"]
    assert store.get("c%") is not None  # no LIKE wildcards
    assert store.get("c_") is None and store.get("%") is None
    assert store.get("") is None and store.ids("") == []


def test_add_is_idempotent_and_learns_the_match(store: RecordStore) -> None:
    record = chess_record()
    store.add(record)
    store.add(record)
    assert store.count() == 1
    store.add(record, match_id="m1", index=3)  # a match's own add after a subscriber's
    store.add(record, match_id="m2", index=4)  # never moves a game to another match
    [summary] = store.games()
    assert (summary.match_id, summary.index) == ("m1", 3)
    assert store.get(record.game_id) == record
    assert store.finished_indices("m1") == {3}


def test_a_game_played_on_replaces_its_adjourned_record(store: RecordStore) -> None:
    """An adjourned game (aborted) played on under its id (its settings have `PLAYED_ON`,
    hub.declared.adjourned) replaces the aborted row: one game, every move; a finished
    row is never replaced, and a plain second add changes nothing, as always."""
    adjourned = chess_record(
        ("f2f3", "e7e5"), termination=Termination.ABORTED, detail="adjourned", winners=()
    )
    played_on = chess_record()
    played_on = attrs.evolve(played_on, settings={**played_on.settings, PLAYED_ON: [2]})
    store.add(adjourned)
    store.add(adjourned)
    store.add(played_on)
    (summary,) = store.games(player="alice")
    assert (summary.game_id, summary.termination, summary.moves) == ("c0ffee01", "normal", 4)
    assert store.count() == 1
    store.add(adjourned)  # (a late copy of the adjourned record: the game stays)
    store.add(attrs.evolve(played_on, detail="other"))  # (a finished row is kept)
    kept = store.get("c0ffee01")
    assert kept is not None and kept.detail == "checkmate" and len(kept.moves) == 4
    assert store.games(termination="aborted") == []


def test_finished_indices_and_match_queries(store: RecordStore) -> None:
    for index in (0, 1, 5):
        store.add(chess_record(game_id=f"m-{index}"), match_id="m", index=index)
    aborted = chess_record(game_id="m-2", winners=(), termination=Termination.ABORTED)
    store.add(aborted, match_id="m", index=2)
    store.add(chess_record(game_id="other"), match_id="n", index=0)
    assert store.finished_indices("m") == {0, 1, 5}
    assert store.finished_indices("nothing") == set()
    assert {game.game_id for game in store.games(match_id="m")} == {"m-0", "m-1", "m-2", "m-5"}
    assert [stored.index for stored in store.records(match_id="m")] == [0, 1, 5, 2]


# -- schema versions -------------------------------------------------------------------------


def test_a_version_0_file_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    sqlite3.connect(path).close()  # an empty database: user_version 0
    with RecordStore.open(path) as store:
        store.add(chess_record())
        assert store.games(player="alice")
    db = sqlite3.connect(path)
    assert schema_version(db) == len(MIGRATIONS)
    db.close()


def test_a_version_1_database_gains_the_player_index(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    db = connect(path)
    assert migrate(db, MIGRATIONS[:1]) == 1
    record = kalah_record()
    data = to_json(record)
    db.execute(
        "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (record.game_id, "kalah", json.dumps(data["players"]), "{}", "1-0", "[0]", "timeout",
         None, 2, record.started_at, record.ended_at, None, None, json.dumps(data), 1),
    )  # fmt: skip
    db.close()
    with RecordStore.open(path) as store:
        assert [game.game_id for game in store.games(player="North")] == [record.game_id]
        assert store.get(record.game_id) == record
    db = sqlite3.connect(path)
    assert schema_version(db) == len(MIGRATIONS)
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    db.close()


def test_a_failing_migration_leaves_the_previous_version(tmp_path: Path) -> None:
    def broken(db: sqlite3.Connection) -> None:
        db.execute("CREATE TABLE half (x)")
        raise RuntimeError("migration bug")

    db = connect(tmp_path / "x.db")
    with pytest.raises(RuntimeError):
        migrate(db, [MIGRATIONS[0], broken])
    assert schema_version(db) == 1
    assert db.execute("SELECT name FROM sqlite_master WHERE name = 'half'").fetchone() is None
    db.close()


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(SchemaTooNew, match="newer hub"):
        RecordStore.open(path)


def test_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("not a database at all, but long enough to have a header " * 20)
    with pytest.raises(sqlite3.DatabaseError):
        RecordStore.open(path)


# -- several processes -----------------------------------------------------------------------

WRITER = """
import sys
from hub.records import RecordStore
from tests.records.helpers import chess_record
path, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
store = RecordStore.open(path)
for n in range(count if count else 10**9):
    store.add(chess_record(game_id=f"{name}-{n}", white=name))
    print(f"{name}-{n}", flush=True)
"""


def writer(path: Path, name: str, count: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), name, str(count)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )


def test_two_processes_write_one_new_database_at_once(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    children = [writer(path, name, 60) for name in ("one", "two")]
    try:
        for child in children:
            out, _ = child.communicate(timeout=60)
            assert child.returncode == 0
            assert len(out.split()) == 60
    finally:
        for child in children:  # a failure must not leave the other writer running
            child.kill()
            child.wait()
    with RecordStore.open(path) as store:
        assert store.count() == 120
        assert len(store.games(player="one")) == len(store.games(player="two")) == 60
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    db.close()


def test_sigkill_loses_no_game_reported_written(tmp_path: Path) -> None:
    path = tmp_path / "killed.db"
    child = writer(path, "k", 0)  # writes until killed
    assert child.stdout is not None
    reported = [child.stdout.readline().strip() for _ in range(40)]
    child.send_signal(signal.SIGKILL)
    rest, _ = child.communicate(timeout=30)
    reported += rest.split()
    assert child.returncode == -signal.SIGKILL
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    db.close()
    with RecordStore.open(path) as store:
        stored = {game.game_id for game in store.games()}
        assert set(reported) <= stored
        assert len(stored) - len(reported) <= 1  # at most the one committed, not yet printed
        for game_id in reported[-3:]:
            assert store.get(game_id) == chess_record(game_id=game_id, white="k")


def test_a_summary_says_the_result_in_the_same_words_as_the_record(store: RecordStore) -> None:
    """``hub games history`` (summaries) and ``show`` (records) say one result, the winner's
    score first, with the seat names at the end (Kalah's pie swap)."""
    won_by_north = attrs.evolve(
        kalah_record(game_id="k2"),
        scores=[7, 41],
        winners=[1],
        termination=Termination.NORMAL,
        fault=None,
    )
    records = [*shapes(), won_by_north]
    store.add_all(records)
    said = {summary.game_id: summary_words(summary) for summary in store.games()}
    assert said == {record.game_id: result_words(record) for record in records}
    assert said["k2"] == "South wins 41-7"  # seat 1, after the pie swap in the south
    assert said["c0ffee02"] == "a draw (insufficient material)"
