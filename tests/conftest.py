"""Shared fixtures and helpers: every test must leave no descendant process behind and records
games only in its own database (`records_database`, ``$HUB_DB``); `program`
finds an installed console script, `need_stockfish` finds Stockfish or skips (fails in CI).

The unit layer (``make check``, ``pytest -m "not system"``) is every test not marked
``system``: a ``system`` test starts a child process, binds or connects a real socket, or
drives a browser. Tests marked ``e2e``, ``browser`` or ``soak`` are ``system``, and so are
the modules of `SYSTEM_MODULES` and the tests of `SYSTEM_TESTS`. A test that is not
``system`` and starts a process or opens a socket FAILS (`unit_layer_guard`), so the split
stays honest: mark it ``@pytest.mark.system`` (or list it) if it must.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from tests.web.browser import chromium_processes, close_chromium

# Every property test draws the same examples on every run (a test's own @settings keep
# this): a red CI is then a bug in the change, never an example found by chance; a new
# counterexample is found by running with HYPOTHESIS_PROFILE=explore.
settings.register_profile("hub", derandomize=True)
settings.register_profile("explore", derandomize=False, max_examples=2000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "hub"))

BIN = Path(sys.executable).parent
"""The directory of the installed console scripts (the venv's bin)."""


def descendants(pid: int) -> list[int]:
    """Every living (or zombie) process below ``pid``, from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if ")" not in stat:  # read empty while the process was going away
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        parents[int(entry.name)] = int(fields[1])
    found: list[int] = []
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        children = [child for child, ppid in parents.items() if ppid == parent]
        found.extend(children)
        frontier.extend(children)
    return found


def our_descendants() -> list[int]:
    """Every process below this one except the session's Chromium (tests/web/browser.py,
    started by the first browser test and kept to the end): what a test checks it left."""
    found = descendants(os.getpid())
    if not found:
        return found
    browser = chromium_processes(descendants)
    return [pid for pid in found if pid not in browser]


SYSTEM_MODULES = frozenset(
    {
        "clubs/test_bare_clubber.py",
        "declared/test_plugin_load_errors.py",
        "declared/test_terminal_turns.py",
        "chess/test_console_records.py",
        "chess/test_console_robustness.py",
        "chess/test_console_sessions.py",
        "chess/test_engine_server.py",
        "chess/test_json_bots.py",
        "chess/test_match_kit.py",
        "chess/test_plugin.py",
        "chesslib/test_engine_client.py",
        "chesslib/test_stockfish_compat.py",
        "clubs/test_human_errors.py",
        "clubs/test_human_pty.py",
        "clubs/test_launch.py",
        "clubs/test_match_kit.py",
        "clubs/test_startup.py",
        "core/test_process.py",
        "core/test_programs.py",
        "core/test_running.py",
        "core/test_serve.py",
        "core/test_serve_abuse.py",
        "declared/test_a_game_from_the_docs.py",
        "declared/test_browser_seat.py",
        "declared/test_connect4_commands.py",
        "declared/test_rematch.py",
        "declared/test_serve_welcome.py",
        "examples/test_tictactoe.py",
        "faults/test_clubs.py",
        "faults/test_kalah.py",
        "faults/test_process.py",
        "faults/test_uqchess.py",
        "kalah/test_declared.py",
        "kalah/test_match_kit.py",
        "kalah/test_options.py",
        "records/test_cli.py",
        "records/test_store.py",
        "test_cli.py",
        "test_every_help.py",
        "tournament/test_cli.py",
        "tournament/test_no_ray.py",
        "tournament/test_robustness.py",
        "uqchess/test_client.py",
        "uqchess/test_memory.py",
        "web/test_fanout.py",
        "web/test_http.py",
    }
)
"""Modules (under tests/) whose tests are ``system`` without a marker of their own: they run
the console scripts, child processes or servers on real sockets."""

SYSTEM_TESTS = frozenset(
    {
        "tournament/test_tournaments.py::test_a_tournament_killed_and_resumed_loses_and_repeats_nothing",
        "tournament/test_tournaments.py::test_a_swiss_never_pairs_two_players_twice",
        "tournament/test_tournaments.py::test_the_table_shows_the_format_elo_and_the_crosstable",
        "tournament/test_tournaments.py::test_bad_tournament_usage_is_one_line_and_status_2",
        "tournament/test_tournaments.py::test_a_swiss_on_ray_records_every_game_of_every_round",
        "declared/test_chance.py::test_spy_programs_over_pipes_and_tcp",
        "declared/test_general_player.py::test_hub_play_seats_the_general_player_as_ai",
        "declared/test_general_player.py::test_hub_match_plays_the_general_player",
        "declared/test_chance.py::test_a_person_at_the_terminal_is_told_the_other_choice_after_their_own",
        "declared/test_chance.py::test_two_people_at_one_keyboard_choose_one_after_the_other",
        "declared/test_chance.py::test_no_page_or_stream_shows_a_card_of_another_hand",
        "declared/test_chance.py::test_no_page_or_stream_shows_a_choice_before_both_are_in",
        "declared/test_picture_rules.py::test_hub_serve_says_in_its_help_where_the_port_is_printed",
        "records/test_identity.py::test_an_engine_s_options_are_part_of_its_identity",
        "web/test_security.py::test_one_client_cannot_take_every_stream",
        "chesslib/test_seats.py::test_a_broken_engine_loses",
        "chesslib/test_seats.py::test_a_real_stockfish_with_a_skill_level_plays_legal_moves",
        "chesslib/test_seats.py::test_an_engine_as_black_gets_a_per_move_limit",
        "chesslib/test_seats.py::test_an_engine_is_set_up_and_told_the_clocks",
        "chesslib/test_seats.py::test_an_engine_is_timed_from_its_go",
        "chesslib/test_seats.py::test_an_engine_that_cannot_start_loses_before_the_first_move",
        "chesslib/test_seats.py::test_an_engine_that_hangs_loses_on_time_and_is_killed",
        "chesslib/test_seats.py::test_an_engine_that_hangs_without_a_clock_loses",
        "chesslib/test_seats.py::test_an_engine_without_uciok_loses_on_time",
        "chesslib/test_seats.py::test_cancelling_a_game_stops_its_engine",
        "records/test_identity.py::test_a_uci_engine_is_its_id_name_whatever_it_is_called",
        "test_record_shape.py::test_a_kit_game_ends_with_a_full_record[clubs]",
        "test_record_shape.py::test_every_game_type_has_the_same_record_keys",
        "tournament/test_runner.py::test_a_worker_that_cannot_load_the_kit_aborts_games",
        "tournament/test_runner.py::test_a_worker_that_dies_is_replaced",
        "tournament/test_runner.py::test_an_interrupted_match_ends_a_worker_still_starting_at_once",
        "tournament/test_runner.py::test_cancelling_a_worker_match_reaps_the_workers",
        "tournament/test_runner.py::test_the_next_game_after_a_worker_died_is_played",
        "tournament/test_runner.py::test_worker_processes_play_the_same_games",
        "tournament/test_runner.py::test_workers_report_a_kit_failure",
    }
)
"""Single tests (``module::function``, every parameter, or one ``[parameter]``) that are
``system`` in a module of unit tests: they start an engine, a player or a worker process."""

SYSTEM_MARKERS = ("system", "e2e", "browser", "soak")
TESTS = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``system`` the tests `SYSTEM_MODULES`, `SYSTEM_TESTS` and the e2e, browser and
    soak markers name."""
    for item in items:
        module = Path(str(item.path)).relative_to(TESTS).as_posix()
        test = f"{module}::{item.name}"
        if (
            module in SYSTEM_MODULES
            or test in SYSTEM_TESTS
            or test.partition("[")[0] in SYSTEM_TESTS
            or any(item.get_closest_marker(m) for m in SYSTEM_MARKERS)
        ):
            item.add_marker(pytest.mark.system)


class UnitLayerViolation(RuntimeError):
    """A unit-layer test started a process or opened a socket."""


def _refuse(what: str, found: list[str]) -> Callable[..., Any]:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        found.append(what)
        raise UnitLayerViolation(
            f"a unit-layer test {what}: mark it @pytest.mark.system (or add its module to "
            "tests/conftest.py's SYSTEM_MODULES), or give it memory streams instead"
        )

    return refuse


@contextlib.contextmanager
def unit_layer_guard(item: pytest.Item) -> Iterator[None]:
    """While a test that is not ``system`` runs (set-up, call, tear-down), starting a
    process (subprocess, trio's, fork, posix_spawn, os.system) or binding, listening on or
    connecting a socket raises `UnitLayerViolation`, and the test fails even if the code
    under test caught it."""
    if item.get_closest_marker("system"):
        yield
        return
    found: list[str] = []
    patches = [
        (subprocess.Popen, "_execute_child", "started a child process"),
        (os, "fork", "forked"),
        (os, "forkpty", "forked a pty"),
        (os, "posix_spawn", "spawned a process"),
        (os, "posix_spawnp", "spawned a process"),
        (os, "system", "ran a shell"),
        (socket.socket, "bind", "bound a socket"),
        (socket.socket, "listen", "listened on a socket"),
        (socket.socket, "connect", "connected a socket"),
        (socket.socket, "connect_ex", "connected a socket"),
    ]
    saved = [(owner, name, owner.__dict__.get(name)) for owner, name, _ in patches]
    for owner, name, what in patches:
        setattr(owner, name, _refuse(what, found))
    try:
        yield
    finally:
        for owner, name, original in saved:
            if original is None:
                delattr(owner, name)
            else:
                setattr(owner, name, original)
    if found:
        pytest.fail(f"unit-layer test {item.nodeid} {found[0]} (see tests/conftest.py)")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    with unit_layer_guard(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    with unit_layer_guard(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    with unit_layer_guard(item):
        return (yield)


def pytest_sessionfinish(session: pytest.Session) -> None:
    close_chromium()  # the browser tests' one Chromium (tests/web/browser.py)


@pytest.fixture(autouse=True)
def no_leftover_processes() -> Iterator[None]:
    """Fail a test that leaves a child process (or zombie) of the test run behind. (A unit
    test cannot start one, but skipping the scan for it made tests/core/test_stdin.py's
    reader threads, which outlive their tests, race the next test for a reused pipe fd.)"""
    before = set(our_descendants())
    yield
    deadline = time.monotonic() + 10.0  # a bound on the wait, generous for a loaded machine
    while True:
        left = set(our_descendants()) - before
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.02)  # grandchildren init reaps: only /proc tells when they are gone
    assert not left, f"processes left behind: {sorted(left)}"


@pytest.fixture(autouse=True)
def records_database(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Every test's games go to a database of its own (``$HUB_DB``, inherited by the programs
    it runs), never to the user's ~/.local/share/hub/games.db; a test asks for this fixture
    for the path. Not in ``tmp_path``, whose contents some tests check."""
    path = tmp_path_factory.mktemp("records") / "games.db"
    monkeypatch.setenv("HUB_DB", str(path))
    return path


def stockfish_path() -> str | None:
    return shutil.which("stockfish") or (
        "/usr/games/stockfish" if os.access("/usr/games/stockfish", os.X_OK) else None
    )


def need_stockfish() -> str:
    """Stockfish's path; skip with a visible reason, or fail when HUB_REQUIRE_STOCKFISH=1."""
    path = stockfish_path()
    if path is None:
        message = "Stockfish is not installed (apt-get install stockfish)"
        if os.environ.get("HUB_REQUIRE_STOCKFISH") == "1":
            pytest.fail(message + " and HUB_REQUIRE_STOCKFISH=1")
        pytest.skip(message)
    return path


def program(name: str) -> str:
    """The path of an installed console script (tests run them as a user would)."""
    path = BIN / name
    assert path.exists(), f"{name} is not installed in {BIN}; run `make test`"
    return str(path)
