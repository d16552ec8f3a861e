"""Registered names (hub.records.identities) and ``hub bots add|list|remove``: a token is
given once and only its hash is kept; a name is one player's, whatever its case."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

import pytest

from hub.records.identities import (
    BadName,
    IdentityStore,
    NameBook,
    NameVerdict,
    token_hash,
    verify,
)
from tests.conftest import program


def test_a_token_is_checked_right_wrong_missing_and_an_unknown_name_is_a_guest(
    tmp_path: Path,
) -> None:
    with IdentityStore.open(tmp_path / "games.db") as names:
        token = names.add("Robo", "bot")
        other = names.add("alice", "person")
        assert names.check("Robo", token).verdict is NameVerdict.OK
        assert names.check("robo", token).registered is not None
        assert names.check("robo", token).registered.name == "Robo"  # type: ignore[union-attr]
        assert names.check("Robo", other).verdict is NameVerdict.WRONG
        assert names.check("Robo", token[:-1]).verdict is NameVerdict.WRONG
        assert names.check("Robo", None).verdict is NameVerdict.MISSING
        assert names.check("Robo", "").verdict is NameVerdict.MISSING
        assert names.check("nobody", token).verdict is NameVerdict.UNKNOWN
        assert [(n.name, n.kind, n.identity) for n in names.names()] == [
            ("alice", "person", "person:alice"),
            ("Robo", "bot", "bot:Robo"),
        ]


def test_only_the_hash_of_a_token_is_stored(tmp_path: Path) -> None:
    path = tmp_path / "games.db"
    with IdentityStore.open(path) as names:
        token = names.add("robo", "bot")
    assert len(token) >= 40
    db = sqlite3.connect(path)
    rows = db.execute("SELECT * FROM names").fetchall()
    db.close()
    assert token not in repr(rows) and token_hash(token) in repr(rows)
    assert verify(token, token_hash(token)) and not verify(token + "x", token_hash(token))


@pytest.mark.parametrize("name", ["ROBO", "robo"])
def test_a_name_is_taken_whatever_its_case_and_kind(tmp_path: Path, name: str) -> None:
    with IdentityStore.open(tmp_path / "games.db") as names:
        names.add("Robo", "bot")
        with pytest.raises(BadName, match="taken"):
            names.add(name, "person")


@pytest.mark.parametrize("name", ["", "a b", "x:y", "-x", "a" * 33, "browser", "Anonymous"])
def test_what_is_not_a_name_is_refused(tmp_path: Path, name: str) -> None:
    with IdentityStore.open(tmp_path / "games.db") as names, pytest.raises(BadName):
        names.add(name, "bot")


def test_a_removed_name_stops_working_and_may_be_registered_again(tmp_path: Path) -> None:
    with IdentityStore.open(tmp_path / "games.db") as names:
        old = names.add("robo", "bot")
        assert not names.remove("robo", "person")  # (of the other kind: not removed)
        assert names.remove("ROBO", "bot") and not names.remove("robo")
        assert names.check("robo", old).verdict is NameVerdict.UNKNOWN
        new = names.add("robo", "bot")
        assert names.check("robo", old).verdict is NameVerdict.WRONG
        assert names.check("robo", new).verdict is NameVerdict.OK


async def test_the_name_book_reads_off_the_event_loop(tmp_path: Path) -> None:
    book = NameBook.at(tmp_path / "games.db")
    token = await book.add("robo", "bot")
    assert (await book.check("robo", token)).verdict is NameVerdict.OK
    assert [found.name for found in await book.names("bot")] == ["robo"]
    with pytest.raises(BadName):
        await book.add("robo", "person")


async def test_the_name_book_keeps_its_connections_and_sees_others_writes(
    tmp_path: Path,
) -> None:
    """One connection serves look-up after look-up (opening one cost ten times a look-up);
    a name another connection adds or removes counts at the next look-up; a kept connection
    that was ended is replaced within the look-up; `close` closes the kept ones."""
    path = tmp_path / "games.db"
    opened: list[IdentityStore] = []

    def opener() -> IdentityStore:
        opened.append(IdentityStore.open(path))
        return opened[-1]

    book = NameBook(opener)
    for _ in range(5):
        assert (await book.check("robo", None)).verdict is NameVerdict.UNKNOWN
    assert len(opened) == 1
    with IdentityStore.open(path) as other:  # another process, say `hub bots add`
        token = other.add("robo", "bot")
        assert (await book.check("robo", token)).verdict is NameVerdict.OK
        other.remove("robo")
    assert (await book.check("robo", token)).verdict is NameVerdict.UNKNOWN
    with pytest.raises(BadName):  # an answer, not a failure: the connection is kept
        await book.add("no such name!", "bot")
    assert len(opened) == 1
    opened[0].close()  # as a server that ends every connection (a PostgreSQL restart)
    assert (await book.check("robo", None)).verdict is NameVerdict.UNKNOWN  # on a new one
    assert len(opened) == 2
    book.close()
    with pytest.raises(sqlite3.ProgrammingError):  # closed
        opened[1]._db.execute("SELECT 1")  # type: ignore[attr-defined]


def hub(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [program("hub"), *args], capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.system
def test_hub_bots_add_prints_the_token_once_and_list_and_remove(tmp_path: Path) -> None:
    db = str(tmp_path / "games.db")
    added = hub("bots", "add", "robo", "--db", db)
    assert added.returncode == 0, added.stderr
    token = added.stdout.strip()
    assert added.stdout == token + "\n" and len(token) >= 40
    assert "printed above, once" in added.stderr and token not in added.stderr
    with IdentityStore.open(db) as names:
        assert names.check("robo", token).verdict is NameVerdict.OK
    again = hub("bots", "add", "Robo", "--db", db)
    assert (again.returncode, again.stdout) == (1, "")
    assert again.stderr == "hub bots add: the name 'Robo' is taken\n"
    listed = hub("bots", "list", "--db", db)
    assert listed.returncode == 0 and listed.stdout.startswith("robo  (since ")
    assert token not in listed.stdout
    assert hub("bots", "remove", "robo", "--db", db).returncode == 0
    gone = hub("bots", "remove", "robo", "--db", db)
    assert gone.returncode == 1 and "no bot named 'robo'" in gone.stderr
    assert hub("bots", "list", "--db", db).stdout == ""
    assert hub("bots").returncode == 2


@pytest.mark.system
def test_hub_names_lists_and_removes_peoples_names_and_keeps_their_games(
    tmp_path: Path,
) -> None:
    from hub.records import RecordStore
    from tests.records.helpers import chess_record

    db = str(tmp_path / "games.db")
    with IdentityStore.open(db) as names:
        token = names.add("Alice", "person")
        names.add("robo", "bot")
    with RecordStore.open(db) as store:
        store.add(chess_record(game_id="g1"))
    listed = hub("names", "list", "--db", db)
    assert listed.returncode == 0 and listed.stdout.startswith("Alice  (since ")
    assert "robo" not in listed.stdout and token not in listed.stdout  # (a bot's: hub bots)

    unknown = hub("names", "remove", "bob", "--db", db)
    assert (unknown.returncode, unknown.stdout) == (1, "")
    assert unknown.stderr == "hub names remove: no person named 'bob' is registered\n"
    bot = hub("names", "remove", "ROBO", "--db", db)
    assert bot.returncode == 1 and "'robo' is a bot's name" in bot.stderr
    assert "hub bots remove robo" in bot.stderr

    removed = hub("names", "remove", "alice", "--db", db)  # (any case)
    assert removed.returncode == 0 and "removed 'Alice'" in removed.stderr
    assert hub("names", "list", "--db", db).stdout == ""
    with IdentityStore.open(db) as names:
        assert names.check("Alice", token).verdict is NameVerdict.UNKNOWN  # (a guest now)
        assert [bot.name for bot in names.names()] == ["robo"]
        names.add("alice", "person")  # free again
    with RecordStore.open(db) as store:
        assert [game.game_id for game in store.games()] == ["g1"]  # nothing recorded goes
    assert hub("names").returncode == 2
    assert hub("names", "remove", "alice", "--db", str(tmp_path / "none" / "x.db")).returncode == 1


@pytest.mark.system
def test_listing_or_removing_names_without_a_database_creates_none(tmp_path: Path) -> None:
    """As ``hub games list`` does: a database that does not exist holds no names; saying so
    makes no file."""
    db = tmp_path / "none" / "games.db"
    for command in ("bots", "names"):
        listed = hub(command, "list", "--db", str(db))
        assert listed.returncode == 0
        assert listed.stdout == f"no names registered: {db} does not exist\n"
        gone = hub(command, "remove", "robo", "--db", str(db))
        assert gone.returncode == 1
        assert gone.stderr == f"hub {command} remove: no names registered: {db} does not exist\n"
    assert not db.parent.exists()
