"""``hub match`` as a user runs it: help, usage errors, the table and JSON, records, Ctrl-C
and SIGTERM with the results so far, SIGKILL then ``--resume``, and a local Ray run."""

from __future__ import annotations

import json
import os
import re
import selectors
import signal
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from hub.records import RecordStore
from hub.tournament.cli import main
from tests.conftest import program
from tests.tournament.helpers import FIRST_FREE, HANG, KIT, ROOT, environment, script

SLOW = FIRST_FREE.replace("print(rest.index", "import time; time.sleep(0.05); print(rest.index")
"""A first-free player that takes 50 ms per move."""
TIMEOUT = 120


def hub_match(*args: str, **kwargs: Any) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [program("hub"), "match", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment(),
        cwd=ROOT,
        **kwargs,
    )


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [program("hub"), "match", *args],
        capture_output=True,
        text=True,
        env=environment(),
        cwd=ROOT,
        timeout=TIMEOUT,
        check=False,
    )


def first_line(process: subprocess.Popen[str], timeout: float = 30) -> str:
    """The first line ``process`` writes on stderr (the match id line)."""
    assert process.stderr is not None
    selector = selectors.DefaultSelector()
    selector.register(process.stderr, selectors.EVENT_READ)
    assert selector.select(timeout), "no output in time"
    return process.stderr.readline()


def match_id(header: str) -> str:
    assert header.startswith("hub match: match "), header
    return header.split()[3].rstrip(":")


def wait_for_games(db: Path, count: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if db.exists():
            with RecordStore.open(db) as store:
                if store.count() >= count:
                    return
        time.sleep(0.05)  # the hub match process writes the database: polled, bounded
    raise AssertionError(f"fewer than {count} games recorded in time")


def processes_mentioning(text: str) -> list[int]:
    """Pids of processes whose command line mentions ``text`` (players in tmp_path)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                command = (entry / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if text in command:
                found.append(int(entry.name))
    return found


def wait_until_gone(text: str, timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while processes_mentioning(text) and time.monotonic() < deadline:
        time.sleep(0.05)  # grandchildren init reaps: only /proc tells when they are gone
    assert not processes_mentioning(text), "processes left behind"


# -- usage ------------------------------------------------------------------------------------


def test_help_lists_every_option_with_its_default(capfd: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    text = capfd.readouterr().out
    entries = re.split(r"\n  (?=-)", text.split("\n  -h, --help")[1])[1:]
    options = {entry.split()[0].rstrip(","): " ".join(entry.split()) for entry in entries}
    assert sorted(options) == sorted(["--games", "--concurrency", "--format", "--rounds",
        "--gauntlet-seeds", "--table", "--seed", "--duplicate", "--openings",
        "--sprt", "--json", "--cluster", "--db", "--no-record", "--resume", "--web",
        "--allowed-hosts", "--resign", "--draw", "--max-plies"])  # fmt: skip
    for option, entry in options.items():
        assert "default" in entry, option
    assert main([KIT, "--help"]) == 0
    assert "--time-ms MS" in capfd.readouterr().out  # the game's own options


@pytest.mark.parametrize(
    ("args", "hint"),
    [
        ([], "name a game"),
        (["nosuchgame", "a", "b"], "no game 'nosuchgame' offers matches"),
        ([KIT, "first"], "takes 2 players, not 1"),
        ([KIT, "first", "second"], "second: not a tic-tac-toe player"),
        ([KIT, "first", "first", "--games", "0"], "--games: 0 is not at least 1"),
        ([KIT, "first", "first", "--sprt", "elo0=5,elo1=1"], "--sprt: elo0 must be less"),
        ([KIT, "first", "first", "--cluster", "spark"], "--cluster takes 'ray'"),
        ([KIT, "first", "first", "--time-ms", "-1"], "--time-ms cannot be negative"),
        ([KIT, "first", "first", "--resume", "x", "--no-record"], "--resume needs"),
        ([KIT, "first", "first", "--bogus"], "unrecognized arguments: --bogus"),
        ([KIT, "first", "first", "--resign", "movecount=3"], "--resign: missing score"),
        ([KIT, "first", "first", "--draw", "movecount=3", "score=1"], "missing movenumber"),
    ],
)
def test_bad_usage_is_one_line_and_status_2(
    capfd: pytest.CaptureFixture[str], args: list[str], hint: str
) -> None:
    assert main(args) == 2
    captured = capfd.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert captured.err.startswith("hub match: ")
    assert hint in captured.err
    assert captured.err.endswith("(see hub match --help)\n")


# -- whole matches --------------------------------------------------------------------------------


def test_a_match_prints_the_table_and_records_every_game(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    done = run(KIT, "first", "random:3", "--games", "6", "--db", str(db), "--sprt", "elo1=50")
    assert done.returncode == 0, done.stderr
    header = done.stderr.splitlines()[0]
    ident = match_id(header)
    assert f"resume with --resume {ident}" in header
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"match {ident}: {KIT}, 6 of 6 games scored, 0 aborted, complete")
    assert lines[1].split() == ["rank", "player", "games", "W", "D", "L", "points", "score",
                                "timeouts", "illegal", "crashes", "aborted"]  # fmt: skip
    # the rank order is by points (which player leads depends on the random games)
    table = [line.split() for line in lines[2:4]]
    assert sorted(row[1] for row in table) == ["first", "random:3"]
    assert [row[0] for row in table] in (["1", "2"], ["1", "1"])
    assert float(table[0][6]) >= float(table[1][6])
    assert lines[4].startswith("Elo difference (first vs random:3): ")
    assert lines[4].endswith("(3 game pairs)")
    assert lines[5].startswith("Game pairs of first: LL ")
    assert lines[6].startswith("SPRT (elo0=0,elo1=50,alpha=0.05,beta=0.05,model=normalized): LLR ")
    assert lines[6].endswith("(game pairs)")
    assert lines[7] == "Distinct games: 6 of 6"
    with RecordStore.open(db) as store:
        assert store.finished_indices(ident) == set(range(6))
        summaries = store.games(match_id=ident)
    assert len(summaries) == 6


def test_json_and_worker_processes(tmp_path: Path) -> None:
    done = run(KIT, "first", "first", "--games", "8", "--seed", "3", "--json", "--no-record")
    local = json.loads(done.stdout)
    done = run(KIT, "first", "first", "--games", "8", "--seed", "3", "--json", "--no-record",
               "--concurrency", "2")  # fmt: skip
    assert done.returncode == 0, done.stderr
    workers = json.loads(done.stdout)
    assert workers["backend"] == "worker processes"
    for key in ("standings", "elo", "games", "scored", "aborted", "seed", "players"):
        assert workers[key] == local[key]
    assert local["games"] == local["scored"] == 8
    assert [line["player"] for line in local["standings"]] in (
        ["first", "first #2"],
        ["first #2", "first"],
    )


@pytest.mark.parametrize(
    ("signum", "concurrency"), [(signal.SIGINT, "1"), (signal.SIGINT, "2"), (signal.SIGTERM, "2")]
)
def test_a_signal_stops_cleanly_with_the_results_so_far(
    tmp_path: Path, signum: int, concurrency: str
) -> None:
    player = f"program:{script(tmp_path, 'slow.py', SLOW)}"
    db = tmp_path / "games.db"
    process = hub_match(KIT, player, player, "--games", "200", "--concurrency", concurrency,
                        "--db", str(db))  # fmt: skip
    try:
        first_line(process)
        wait_for_games(db, 2)
        process.send_signal(signum)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 128 + signum
    assert "Traceback" not in err
    assert ", interrupted (" in out.splitlines()[0]
    scored = int(out.split(", ")[1].split()[0])
    with RecordStore.open(db) as store:
        assert scored == store.count() >= 2
    wait_until_gone(str(tmp_path))


def test_sigkill_mid_match_then_resume(tmp_path: Path) -> None:
    player = f"program:{script(tmp_path, 'slow.py', SLOW)}"
    db = tmp_path / "games.db"
    args = [KIT, player, "random:2", "--games", "40", "--concurrency", "2", "--db", str(db)]
    process = hub_match(*args)
    try:
        ident = match_id(first_line(process))
        wait_for_games(db, 3)
        process.kill()
        process.wait()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    wait_until_gone(str(tmp_path))  # the orphaned workers end their games and exit
    with sqlite3.connect(db) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    with RecordStore.open(db) as store:
        before = store.finished_indices(ident)
    assert 3 <= len(before) < 40

    done = run(*args, "--resume", ident, "--json")
    assert done.returncode == 0, done.stderr
    assert f"{40 - len(before)} of 40 games to play" in done.stderr.splitlines()[0]
    result = json.loads(done.stdout)
    assert (result["match_id"], result["games"], result["scored"]) == (ident, 40, 40)
    assert sum(line["games"] for line in result["standings"]) == 80
    with RecordStore.open(db) as store:
        assert store.finished_indices(ident) == set(range(40))
        assert store.count() == 40
    with sqlite3.connect(db) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]

    again = run(*args, "--resume", ident, "--json")  # nothing left: the same table
    assert again.returncode == 0
    assert json.loads(again.stdout)["standings"] == result["standings"]
    other = run(KIT, "first", "random:2", "--games", "40", "--db", str(db), "--resume", ident)
    assert other.returncode == 2
    assert "give the players the match was started with" in other.stderr


def test_ray_runs_the_same_match_with_the_same_table_shape(tmp_path: Path) -> None:
    pytest.importorskip("ray", reason="ray is not installed (pip install 'hub[cluster]')")
    args = [KIT, "first", "first", "--games", "6", "--seed", "5", "--json", "--no-record"]
    local = run(*args)
    on_ray = run(*args, "--cluster", "ray", "--concurrency", "2")
    assert on_ray.returncode == 0, on_ray.stderr
    assert "Traceback" not in on_ray.stderr
    local_json, ray_json = json.loads(local.stdout), json.loads(on_ray.stdout)
    assert ray_json.keys() == local_json.keys()
    assert ray_json["backend"] == "ray (local, 2 CPUs)"
    assert ray_json["standings"] == local_json["standings"]
    assert ray_json["elo"] == local_json["elo"]
    table = run(*args[:-2], "--no-record", "--cluster", "ray", "--concurrency", "2")
    assert table.returncode == 0
    assert table.stdout.splitlines()[1].split() == [
        "rank", "player", "games", "W", "D", "L", "points", "score",
        "timeouts", "illegal", "crashes", "aborted",
    ]  # fmt: skip


# -- telling the truth: repeated games, faults, resume --------------------------------------------


def in_process(capfd: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``hub match`` in this process: its status, stdout and stderr."""
    status = main(list(args))
    captured = capfd.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("openings", ["fixed", "1"])
def test_deterministic_players_without_distinct_openings_are_warned_about(
    capfd: pytest.CaptureFixture[str], openings: str
) -> None:
    status, out, _ = in_process(capfd, KIT, "first", "first", "--games", "6", "--openings",
                                openings, "--no-record")  # fmt: skip
    assert status == 0
    lines = out.splitlines()
    assert "Distinct games: 1 of 6" in lines
    assert ("warning: 5 of 6 games repeated an earlier game move for move, so the games are "
            "not independent") in out  # fmt: skip
    status, out, _ = in_process(capfd, KIT, "first", "first", "--games", "6", "--openings",
                                openings, "--no-record", "--json")  # fmt: skip
    data = json.loads(out)
    assert (data["distinct_games"], data["compared_games"]) == (1, 6)
    assert len(data["warnings"]) == 1 and "not independent" in data["warnings"][0]


def test_fixed_openings_start_every_game_from_the_usual_start(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    done = run(KIT, "first", "random:1", "--games", "4", "--openings", "fixed", "--db", str(db))
    assert done.returncode == 0, done.stderr
    with RecordStore.open(db) as store:
        openings = [store.get(s.game_id).settings["opening"] for s in store.games()]  # type: ignore[union-attr]
    assert openings == [None] * 4
    bad = run(KIT, "first", "first", "--openings", "some", "--no-record")
    assert bad.returncode == 2
    assert "'some' is neither a number of openings (1 or more) nor 'fixed'" in bad.stderr


def test_time_losses_show_in_the_table_and_the_json(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    hang = f"program:{script(tmp_path, 'hang.py', HANG)}"
    args = [KIT, hang, "first", "--games", "2", "--time-ms", "50", "--no-record"]
    status, out, _ = in_process(capfd, *args)
    assert status == 0
    rows = {line.split()[1]: line.split() for line in out.splitlines()[2:4]}
    assert rows[hang][2:6] == ["2", "0", "0", "2"]
    assert rows[hang][-4:] == ["2", "0", "0", "0"]  # timeouts, illegal, crashes, aborted
    assert rows["first"][-4:] == ["0", "0", "0", "0"]
    status, out, _ = in_process(capfd, *args, "--json")
    standings = {row["player"]: row for row in json.loads(out)["standings"]}
    assert (standings[hang]["timeouts"], standings["first"]["timeouts"]) == (2, 0)
    wait_until_gone(str(tmp_path))


def test_resume_refuses_what_it_cannot_continue(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "games.db")
    args = [KIT, "first", "random:2", "--games", "4", "--seed", "7", "--db", db]
    status, out, _ = in_process(capfd, *args, "--json")
    assert status == 0
    ident = json.loads(out)["match_id"]
    refused = [
        (["--resume", "nosuchid"], "--resume nosuchid: no game of that match is recorded in"),
        (["--resume", ident, "--time-ms", "500"],
         "the match was played with time_ms 1000, not 500: give the settings it was started "
         "with"),
        ([*args[:1], "random:2", "first", *args[3:], "--resume", ident],
         "game 0 was played by first, random:2, not random:2, first"),
        (["--resume", ident, "--seed", "8"], "started from the opening "),
        (["--resume", ident, "--openings", "fixed"], ", not null: give the openings the match "
         "was started with"),
    ]  # fmt: skip
    for extra, message in refused:
        command = extra if extra[0] == KIT else [*args, *extra]
        status, out, err = in_process(capfd, *command)
        assert status == 2, (extra, err)
        assert out == ""
        assert err.count("\n") == 1 and message in err, (extra, err)
    status, out, err = in_process(capfd, *args, "--resume", ident, "--json")
    assert status == 0, err
    assert json.loads(out)["scored"] == 4
