"""Player identity: who a recorded player is, beside its display name (hub/core/model/identity.py).

Two seats of one identity are one player (self-play), anonymous clients excepted; one engine
under several display names is one identity, shown by its latest name; a random mover's seed
is part of its identity; older records and databases get an identity derived from what they
have.
"""

from __future__ import annotations

import json
import random
import re
import sqlite3
from pathlib import Path

import attrs
import pytest
import trio

from hub.chess.seats import UciSeat, level_seat
from hub.chess.uci import HandshakeReader
from hub.core.model.events import record_from_json, to_json
from hub.core.model.identity import (
    ai_identity,
    engine_identity,
    identity_of,
    program_identity,
    random_identity,
    remote_identity,
    seat_identities,
    with_options,
)
from hub.core.model.values import PlayerInfo
from hub.games.kalah.players import ai_seat
from hub.records.store import MIGRATIONS, RecordStore, connect, migrate
from tests.chesslib.helpers import TIMEOUT, fake_engine_argv
from tests.records.helpers import chess_record, clubs_record, kalah_record
from tests.records.test_cli import Capture, run

CLUBBER = PlayerInfo("clubber", "program", "clubber", "program:/bin/clubber@0123456789ab")


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "games.db")


def rows_of(out: str) -> list[list[str]]:
    """A table's rows (after the title and the header, before any note), cells split at
    two spaces."""
    rows = [re.split(r"\s{2,}", line.strip()) for line in out.splitlines()[2:]]
    return [row for row in rows if len(row) > 1]


def test_two_seats_of_one_identity_are_one_player() -> None:
    three = [CLUBBER, CLUBBER, CLUBBER]
    assert seat_identities("clubs", three) == (CLUBBER.identity,) * 3
    # Older records without identities: the same, from their names.
    old = [PlayerInfo("clubber"), PlayerInfo("clubber"), PlayerInfo("other")]
    assert seat_identities("clubs", old) == (
        "program:clubber", "program:clubber", "program:other"
    )  # fmt: skip
    # Two Kalah TCP clients are both anonymous, and still two players of their game.
    remotes = [PlayerInfo("127.0.0.1:52316", "remote"), PlayerInfo("127.0.0.1:52318", "remote")]
    assert seat_identities("kalah", remotes) == (
        "remote:anonymous (seat 1)", "remote:anonymous (seat 2)"
    )  # fmt: skip


def test_self_play_is_one_player(capfd: Capture, db: str) -> None:
    other = PlayerInfo("other", "program", "other", "program:/bin/other@ba9876543210")
    with RecordStore.open(db) as store:
        store.add(attrs.evolve(clubs_record(), players=[CLUBBER] * 3, winners=[0]))
        store.add(
            attrs.evolve(
                clubs_record(), game_id="c2", players=[CLUBBER, other, CLUBBER], winners=[2]
            )
        )
    status, out, _ = run(capfd, "stats", "--game", "clubs", "--db", db)
    assert status == 0
    # Two games: clubber played both (one against itself: no result), won the other.
    rows = {row[0]: row[1:6] for row in rows_of(out)}
    assert rows == {
        "clubber": ["2", "1", "0", "0", "100.0%"],
        "other": ["1", "0", "0", "1", "0.0%"],
    }
    assert "1 game(s) of a player against itself" in out
    status, out, _ = run(capfd, "ratings", "clubs", "--json", "--db", db)
    result = json.loads(out)
    assert [(p["identity"], p["games"], p["wins"]) for p in result["players"]] == [
        (CLUBBER.identity, 2, 1), (other.identity, 1, 0)
    ]  # fmt: skip
    # a player with only games against itself is listed as not rated
    with RecordStore.open(db) as store:
        store.add(attrs.evolve(clubs_record(), game_id="c3", players=[other] * 3, winners=[1]))
        store.add(
            attrs.evolve(
                clubs_record(), game_id="c4", players=[PlayerInfo("solo")] * 3, winners=[1]
            )
        )
    status, out, _ = run(capfd, "ratings", "clubs", "--db", db)
    assert status == 0 and "  not rated (only games against itself): solo (1 game(s))" in out


def test_a_random_mover_s_seed_is_part_of_its_identity() -> None:
    assert random_identity("connect4") == "connect4/random"
    assert random_identity("connect4", 7) == "connect4/random:7"
    assert identity_of(PlayerInfo("random", "ai", "random:7"), "connect4") == "connect4/random:7"
    assert identity_of(PlayerInfo("random", "ai", "random"), "connect4") == "connect4/random"


def test_a_player_is_shown_by_its_latest_name(capfd: Capture, db: str) -> None:
    bot = "program:/bin/bot@0123456789ab"
    shown = ["bot-v1", "bot-v1", "bot-v1", "bot-v2"]
    with RecordStore.open(db) as store:
        for number, name in enumerate(shown):
            record = kalah_record(game_id=f"k{number}", ended=1_700_000_000.0 + number)
            players = [PlayerInfo(name, "program", name, bot), PlayerInfo("ai:2", "ai", "ai:2")]
            store.add(attrs.evolve(record, players=players))
    status, out, _ = run(capfd, "stats", "--game", "kalah", "--db", db)
    assert status == 0
    assert {row[-1]: row[0] for row in rows_of(out)}[bot] == "bot-v2"
    status, out, _ = run(capfd, "ratings", "kalah", "--json", "--db", db)
    names = {p["identity"]: p["names"] for p in json.loads(out)["players"]}
    assert names[bot] == ["bot-v2", "bot-v1"]


def test_one_engine_under_several_display_names_is_one_identity(capfd: Capture, db: str) -> None:
    kalah_ai = ai_identity("kalah", 9)
    names = [
        PlayerInfo("AI", "ai", "", kalah_ai),  # hub play kalah
        PlayerInfo("computer", "ai", "", kalah_ai),  # hub serve kalah
        PlayerInfo("ai:9", "ai", "ai:9", kalah_ai),  # hub match kalah
    ]
    with RecordStore.open(db) as store:
        for number, name in enumerate(names):
            record = kalah_record(game_id=f"k{number}", ended=1_700_000_000.0 + number)
            store.add(attrs.evolve(record, players=[name, PlayerInfo(f"p{number}", "remote")]))
    status, out, _ = run(capfd, "stats", "--game", "kalah", "--db", db)
    assert status == 0
    rows = {row[-1]: row for row in rows_of(out)}
    assert set(rows) == {"kalah/ai:9", "remote:anonymous"}  # the clients, too, are one
    assert rows["kalah/ai:9"][:2] == ["ai:9", "3"]  # three games, one row, the latest name
    # --player finds them all by identity too.
    status, out, _ = run(capfd, "history", "--player", "KALAH/AI:9", "--db", db)
    assert len(out.splitlines()) == 4
    # An older record (no identity) of an AI named ``computer2`` is chess/ai:2, as ai:2 is.
    assert identity_of(PlayerInfo("computer2", "ai"), "chess") == "chess/ai:2"
    assert identity_of(PlayerInfo("ai:2", "ai", "ai:2"), "chess") == "chess/ai:2"


def test_identity_round_trips_and_older_json_still_reads() -> None:
    record = attrs.evolve(chess_record(), players=[CLUBBER, PlayerInfo("x", "remote")])
    data = to_json(record)
    assert data["players"][0]["identity"] == CLUBBER.identity
    assert record_from_json(data) == record
    for player in data["players"]:
        del player["identity"]  # a record written before identities
    assert record_from_json(data).players[0] == attrs.evolve(CLUBBER, identity="")


def test_a_version_2_database_gains_identities(tmp_path: Path) -> None:
    path = tmp_path / "v2.db"
    db = connect(path)
    assert migrate(db, MIGRATIONS[:2]) == 2
    record = chess_record()  # alice (person) vs ai:4 (ai), written without identities
    data = to_json(record)
    for player in data["players"]:
        del player["identity"]
    db.execute(
        "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (record.game_id, "chess", json.dumps(data["players"]), "{}", "0-1", "[1]", "normal",
         None, 4, record.started_at, record.ended_at, None, None, json.dumps(data), 1),
    )  # fmt: skip
    db.execute(
        "INSERT INTO players VALUES (?, 0, 'alice', 'person', ''), (?, 1, 'ai:4', 'ai', 'ai:4')",
        (record.game_id, record.game_id),
    )
    db.close()
    with RecordStore.open(path) as store:
        assert store.games()[0].identities == ("person:alice", "chess/ai:4")
        assert [game.game_id for game in store.games(player="chess/ai:4")] == [record.game_id]
        assert store.get(record.game_id) == attrs.evolve(
            record, players=[attrs.evolve(player, identity="") for player in record.players]
        )
    db = sqlite3.connect(path)
    assert db.execute("SELECT identity FROM players ORDER BY seat").fetchall() == [
        ("person:alice",), ("chess/ai:4",)
    ]  # fmt: skip
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    db.close()


def test_a_program_is_its_resolved_path_and_content(tmp_path: Path) -> None:
    program = tmp_path / "bot"
    program.write_text("#!/bin/sh\necho one\n")
    link = tmp_path / "link"
    link.symlink_to(program)
    first = program_identity(str(program))
    assert first.startswith(f"program:{program}@") and len(first.rsplit("@")[1]) == 12
    assert program_identity(str(link)) == first  # resolved
    program.write_text("#!/bin/sh\necho two, a new version\n")
    assert program_identity(str(program)) != first  # another program now
    assert program_identity(str(tmp_path / "missing")) == f"program:{tmp_path / 'missing'}"


def test_seats_say_who_they_are() -> None:
    assert ai_seat(7, name="AI").player.identity == "kalah/ai:7"
    assert level_seat(3, random.Random(1)).player.identity == "chess/ai:3"
    assert remote_identity() == "remote:anonymous" and remote_identity("ann") == "remote:ann"
    reader = HandshakeReader(ready=True)
    for line in ("id name Stockfish 15.1", "id author the Stockfish developers", "uciok"):
        reader.feed(line)
    assert engine_identity(reader.name) == "uci:Stockfish 15.1"


async def test_a_uci_engine_is_its_id_name_whatever_it_is_called() -> None:
    seat = UciSeat(argv=tuple(fake_engine_argv()), player=PlayerInfo("my engine", "engine"))
    try:
        with trio.fail_after(TIMEOUT):
            await seat.launch()
    finally:
        await seat.aclose()
    assert seat.failure is None
    assert seat.player == PlayerInfo("my engine", "engine", "", "uci:Fake")


async def test_an_engine_s_options_are_part_of_its_identity() -> None:
    """Stockfish at another skill level is another player."""
    assert with_options("uci:Stockfish 16", ()) == "uci:Stockfish 16"
    options = (("Skill Level", "3"), ("Hash", "16"))
    assert with_options("uci:Stockfish 16", options) == "uci:Stockfish 16 (Hash=16, Skill Level=3)"
    seat = UciSeat(
        argv=tuple(fake_engine_argv()),
        options=(("Hash", "16"),),
        player=PlayerInfo("fake", "engine"),
    )
    try:
        with trio.fail_after(TIMEOUT):
            await seat.launch()
    finally:
        await seat.aclose()
    assert seat.failure is None
    assert seat.player.identity == "uci:Fake (Hash=16)"
