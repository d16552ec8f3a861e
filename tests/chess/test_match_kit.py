"""``hub match chess``: every game's TournamentKit (hub.declared.kit) with the chess
declaration's match hooks: options, players, openings, adjudication and whole games between
levels, Stockfish, ``hub engine`` and broken engines (every process reaped)."""

from __future__ import annotations

import argparse
import io
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import chess
import pytest
import trio

from hub.chess.game import ChessGame
from hub.chess.rules import ChessState, Draws, initial
from hub.chess.seats import EngineShelf
from hub.core.commands.plugin import discover
from hub.core.model.bus import EventBus
from hub.core.model.events import GameEnded, GameRecord, GameStarted, MoveMade
from hub.core.model.referee import Termination
from hub.core.play.kit import GameSpec
from hub.declared.kit import DeclaredKit
from hub.games.chess.game import ChessMatchGame
from hub.games.chess.match import SHELF
from hub.games.chess.openings import (
    BUILTIN,
    OPENINGS,
    OpeningError,
    builtin_openings,
    opening,
    opening_state,
    parse_opening_line,
    pick_openings,
    read_openings,
)
from hub.games.chess.players import (
    DEFAULT_MAX_PLIES,
    DEFAULT_TC,
    ChessSettings,
    parse_player,
    resolve_command,
)
from hub.testing import check_game
from tests.chesslib.helpers import TIMEOUT, fake_engine_argv, logged
from tests.conftest import need_stockfish

FAKE = "uci:" + shlex.join(fake_engine_argv())
kit = DeclaredKit(ChessMatchGame)


def settings(*args: str) -> dict[str, Any]:
    parser = argparse.ArgumentParser()
    kit.add_options(parser)
    return kit.settings(parser.parse_args(list(args)))


def replay(record: GameRecord) -> ChessState:
    """The record's game replayed from its opening: every move legal, the views right."""
    referee = ChessGame()
    state = opening_state(record.settings["opening"], Draws.FIDE)
    assert record.initial_state["fen"] == state.board.fen()
    for move in record.moves:
        assert move.seat == state.turn_seat
        state = referee.apply(state, move.move)
        assert move.state["fen"] == state.board.fen()
    assert record.final_state["fen"] == state.board.fen()
    return state


async def play(
    players: Sequence[str], *args: str, opening: Any = None, events: EventBus | None = None
) -> GameRecord:
    spec = GameSpec("game-1", settings(*args), tuple(players), opening)
    with trio.fail_after(TIMEOUT * 2):
        return await kit.play(spec, events or EventBus())


# -- the plug-in, its options and players -----------------------------------------------------


def test_the_chess_plugin_offers_the_kit() -> None:
    match = discover()["chess"].match
    assert match is not None
    offered = match()
    assert isinstance(offered, DeclaredKit) and offered.game is ChessMatchGame
    assert kit.seats == (2, 2)


def test_default_and_given_settings() -> None:
    assert settings() == {
        "rules": "console",
        "tc": DEFAULT_TC,
        "openings": BUILTIN,
        "max_plies": DEFAULT_MAX_PLIES,
    }
    assert settings("--tc", "100ms", "--max-plies", "0")["tc"] == "100ms"
    with pytest.raises(ValueError, match="bad time control"):
        settings("--tc", "fast")
    with pytest.raises(ValueError, match="--max-plies"):
        settings("--max-plies", "-3")
    with pytest.raises(ValueError, match="cannot read openings file"):
        settings("--opening-file", "/nonexistent/openings.epd")


def test_player_specs() -> None:
    assert parse_player("ai:3").level == 3
    assert parse_player("human").kind == "person"
    stockfish = parse_player("stockfish?Skill Level=3&Threads=1")
    assert (stockfish.kind, stockfish.command) == ("engine", ("stockfish",))
    assert stockfish.options == (("Skill Level", "3"), ("Threads", "1"))
    assert stockfish.player.name == "stockfish?Skill Level=3&Threads=1"
    assert parse_player("uci:/usr/games/stockfish").command == ("/usr/games/stockfish",)
    assert parse_player("uci:hub engine").command == ("hub", "engine")
    assert parse_player("hub-engine").command == ("hub", "engine")
    assert parse_player("hub-engine?Hash=8").options == (("Hash", "8"),)
    for bad, message in [
        ("ai:5", "ai:1 to ai:4"),
        ("ai:x", "ai:1 to ai:4"),
        ("stockfish?Skill Level", "NAME=VALUE"),
        ("stockfish?=3", "option name"),
        ("uci:", "no engine command"),
        ("uci:'unclosed", "quotation"),
    ]:
        with pytest.raises(ValueError, match=message):
            parse_player(bad)


def test_check_player(monkeypatch: pytest.MonkeyPatch) -> None:
    ok = settings()
    assert kit.check_player("ai:4", ok) is None
    assert "ai:1 to ai:4" in (kit.check_player("ai:0", ok) or "")
    assert "no program 'no-such-engine'" in (kit.check_player("no-such-engine", ok) or "")
    assert "not an executable" in (kit.check_player("/nonexistent/engine", ok) or "")
    assert kit.check_player(FAKE, ok) is None
    assert kit.check_player(FAKE + "?hash=8", ok) is None  # UCI names ignore case
    unknown = kit.check_player(FAKE + "?Skill Level=3", ok) or ""
    assert "has no option 'Skill Level' (it has: Hash)" in unknown
    silent = kit.check_player(FAKE + " --mode noready", ok) or ""
    assert "does not speak UCI" in silent

    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert "not a terminal" in (kit.check_player("human", ok) or "")

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdin", Terminal(""))
    assert kit.check_player("human", ok) is None


def test_hub_engine_is_found_beside_hub() -> None:
    argv = resolve_command(parse_player("hub-engine").command)
    assert argv is not None and argv[1:] == ["engine"]
    assert Path(argv[0]).parent == Path(sys.executable).parent
    assert kit.check_player("hub-engine", settings()) is None


# -- openings -------------------------------------------------------------------------------


def test_the_builtin_openings_are_legal_distinct_and_unfinished() -> None:
    assert 20 <= len(OPENINGS) <= 40
    assert len({name for name, _ in OPENINGS}) == len(OPENINGS)
    referee = ChessGame()
    positions = set()
    for value in builtin_openings():
        state = opening_state(value, Draws.FIDE)  # raises for an illegal move
        assert referee.to_move(state) is not None
        assert 8 <= len(state.moves) <= 12
        positions.add(state.board.epd())
    assert len(positions) == len(OPENINGS)


def test_opening_lines_fen_epd_and_moves() -> None:
    assert parse_opening_line("  # a comment") is None
    assert parse_opening_line("") is None
    moves = parse_opening_line("e2e4 e7e5")
    assert moves == {"name": "e2e4 e7e5", "fen": chess.STARTING_FEN, "moves": ["e2e4", "e7e5"]}
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    assert parse_opening_line(fen) == {"name": fen, "fen": fen, "moves": []}
    epd = parse_opening_line(
        'rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 id "Sicilian";'
    )
    assert epd is not None and epd["name"] == "Sicilian"
    assert epd["fen"] == "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1"
    with pytest.raises(OpeningError):
        parse_opening_line("not/a fen at all")


def test_an_openings_file_is_checked_line_by_line(tmp_path: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_text("# two openings\n\ne2e4 c7c5\n4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\n")
    assert [value["name"] for value in read_openings(str(good))] == [
        "e2e4 c7c5",
        "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
    ]
    assert settings("--opening-file", str(good))["openings"] == str(good)
    for text, message in [
        ("e2e4\ne2e4 e2e4\n", r"bad.txt:2: move 2 \(e2e4\) is not legal"),
        ("e2e5\n", r"bad.txt:1: move 1 \(e2e5\) is not legal"),
        ("k7/8/8/8/8/8/8/7K w - - 0 1\n", "bad.txt:1: the game is already over"),
        ("8/8/8/8/8/8/8/8 w - - 0 1\n", "bad.txt:1: not a legal position"),
        ("# nothing\n", "no openings"),
    ]:
        bad = tmp_path / "bad.txt"
        bad.write_text(text)
        with pytest.raises(ValueError, match=message):
            read_openings(str(bad))


def test_openings_are_drawn_from_the_seed_without_repeats() -> None:
    chosen = kit.openings(settings(), 50, seed=7)
    assert chosen == kit.openings(settings(), 50, seed=7)
    assert chosen != kit.openings(settings(), 50, seed=8)
    names = [value["name"] for value in chosen]
    assert len(set(names[: len(OPENINGS)])) == len(OPENINGS)  # every one before any repeat
    assert pick_openings([{"name": "x"}], 3, seed=1) == [{"name": "x"}] * 3


# -- the rules of a match game --------------------------------------------------------------


def arbiter(max_plies: int = DEFAULT_MAX_PLIES) -> ChessGame:
    """Chess as a match plays it (`ChessSetup.plan`): an arbiter's draws, a cap."""
    return ChessGame(draws=Draws.ARBITER, max_plies=max_plies)


def test_match_rules_keep_the_referee_contract() -> None:
    rules = arbiter(max_plies=80)
    outcomes = check_game(lambda rng: (rules, initial()), playouts=3)
    assert all(outcome.termination is Termination.NORMAL and outcome.detail for outcome in outcomes)


def after(moves: str, fen: str = chess.STARTING_FEN) -> ChessState:
    referee = ChessGame()
    state = initial(fen)
    for move in moves.split():
        state = referee.apply(state, move)
    return state


@pytest.mark.parametrize(
    ("state", "winners", "detail"),
    [
        (after("f2f3 e7e5 g2g4 d8h4"), (1,), "checkmate"),
        (after("", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), (0, 1), "stalemate"),
        (after("", "8/8/4k3/8/8/4K3/8/8 w - - 0 1"), (0, 1), "insufficient material"),
        (after("g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8"), (0, 1), "threefold repetition"),
        (after("h1h2", "4k3/8/8/8/8/8/4P3/4K2R w K - 99 80"), (0, 1), "fifty-move rule"),
        (after("g1f3 g8f6 b1c3 b8c6"), (0, 1), "adjudicated: 4 plies"),
    ],
)
def test_match_endings(state: ChessState, winners: tuple[int, ...], detail: str) -> None:
    rules = arbiter(max_plies=4)
    outcome = rules.outcome(state)
    assert outcome is not None and rules.to_move(state) is None
    assert (tuple(sorted(outcome.winners)), outcome.detail) == (winners, detail)
    assert sum(outcome.scores) == 2  # half points: a win is 2, a draw 1 each
    assert rules.legal_moves(state) == []


def test_an_opening_longer_than_the_ply_cap_is_played_then_adjudicated() -> None:
    """The cap counts the opening's plies but does not stop them (the rules alone play an
    opening): the game starts after all of them and ends at once."""
    settings = ChessSettings("none", "builtin", 4).to_json()
    moves = ["e2e4", "e7e5", "g1f3", "b8c6", "d2d4", "e5d4", "f3d4", "g8f6"]
    plan = ChessMatchGame.setup.plan(
        ChessMatchGame, settings, 2, opening("Scotch Game", moves), "g1"
    )
    game, state = plan.game, plan.state
    assert state.moves == tuple(moves)
    outcome = game.outcome(state)
    assert outcome is not None and outcome.detail == "adjudicated: 4 plies"


def test_checkmate_on_the_hundredth_quiet_ply_is_still_checkmate() -> None:
    state = after("a1a8", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 80")
    outcome = arbiter().outcome(state)
    assert outcome is not None and (outcome.winners, outcome.detail) == ({0}, "checkmate")


def test_a_repetition_counts_the_opening_moves() -> None:
    rules = arbiter()
    state = after("g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1")
    assert rules.to_move(state) == 1
    outcome = rules.outcome(rules.apply(state, "f6g8"))
    assert outcome is not None and (outcome.winners, outcome.detail) == (
        {0, 1},
        "threefold repetition",
    )


# -- whole games ------------------------------------------------------------------------------


async def test_a_game_between_levels_is_recorded_with_its_opening() -> None:
    bus = EventBus()
    events: list[object] = []
    bus.listen(events.append)
    opening = builtin_openings()[0]
    record = await play(
        ["ai:1", "ai:3"], "--tc", "5+0.05", "--max-plies", "60", opening=opening, events=bus
    )
    assert isinstance(events[0], GameStarted) and isinstance(events[-1], GameEnded)
    assert sum(isinstance(event, MoveMade) for event in events) == len(record.moves)
    assert record.game == "chess" and record.game_id == "game-1"
    assert [(p.name, p.kind, p.spec) for p in record.players] == [
        ("ai:1", "ai", "ai:1"),
        ("ai:3", "ai", "ai:3"),
    ]
    assert record.settings["rules"] == "console" and record.settings["opening"] == opening
    assert record.time_controls == ("5+0.05", "5+0.05")
    assert record.fault is None and record.termination is Termination.NORMAL
    assert record.detail
    state = replay(record)
    assert len(state.moves) <= 60
    assert record.result_text() in ("1-0", "0-1", "1/2-1/2")


async def test_level_four_keeps_to_a_game_clock() -> None:
    record = await play(["ai:2", "ai:4"], "--tc", "4+0.05", "--max-plies", "40")
    assert record.fault is None, record.fault
    replay(record)


async def test_a_game_against_stockfish_with_a_skill_level() -> None:
    need_stockfish()
    record = await play(["ai:1", "stockfish?Skill Level=1&Threads=1"], "--tc", "3+0.05")
    assert record.fault is None, record.fault
    assert record.players[1].kind == "engine"
    assert record.termination is Termination.NORMAL
    replay(record)


async def test_a_game_against_hub_engine() -> None:
    record = await play(["hub-engine", "ai:1"], "--tc", "4+0.1", "--max-plies", "16")
    assert record.fault is None, record.fault
    assert record.detail == "adjudicated: 16 plies" or record.winners == (0,)
    replay(record)


@pytest.mark.parametrize(
    ("mode", "termination"),
    [
        ("--mode garbage", Termination.MALFORMED),
        ("--mode illegal", Termination.ILLEGAL_MOVE),
        ("--die-after 1", Termination.DISCONNECT),
        ("--delay 60", Termination.TIMEOUT),
    ],
)
async def test_a_broken_engine_loses_its_game(mode: str, termination: Termination) -> None:
    record = await play(["ai:1", f"{FAKE} {mode}"], "--tc", "0.5+0")
    assert record.fault is not None and record.fault.seat == 1
    assert record.termination is termination
    assert record.winners == (0,) and record.scores == (2, 0)


async def test_a_person_without_a_terminal_loses_before_the_first_move(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("e2e4\n"))  # a worker's request pipe
    record = await play(["ai:1", "human"], "--tc", "5+0")
    assert record.moves == () and record.fault is not None
    assert (record.fault.seat, record.termination) == (1, Termination.DISCONNECT)
    assert "no terminal" in record.fault.detail


async def test_a_cancelled_game_reaps_its_engines_and_is_aborted(tmp_path: Path) -> None:
    bus = EventBus()
    ended: list[GameRecord] = []
    bus.listen(lambda event: ended.append(event.record) if isinstance(event, GameEnded) else None)
    log = tmp_path / "log"
    slow = f"{FAKE} --delay 60 --log {shlex.quote(str(log))}"
    spec = GameSpec("game-2", settings("--tc", "none"), (slow, FAKE), None)

    async def play_it() -> None:
        await kit.play(spec, bus)
        pytest.fail("the game should still be waiting for the first engine")

    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play_it)
            await logged(log, "go ")  # the first engine is thinking
            nursery.cancel_scope.cancel()
    assert ended[0].termination is Termination.ABORTED


# -- engines kept between the games of a session (hub match's slots) ---------------------------


async def test_a_session_keeps_its_engines_between_games(tmp_path: Path) -> None:
    log = tmp_path / "log"
    engine = f"{FAKE} --log {shlex.quote(str(log))}"
    with trio.fail_after(TIMEOUT * 2):
        async with kit.session() as session:
            for number in range(3):
                opening = builtin_openings()[number]
                cap = str(len(opening["moves"]) + 4)
                spec = GameSpec(
                    f"game-{number}",
                    settings("--tc", "5+0", "--max-plies", cap),
                    (engine, engine),
                    opening,
                )
                record = await kit.play(spec, EventBus())
                assert record.fault is None and len(record.moves) == 4
                assert all(player.identity for player in record.players)
            shelf = session.resources[SHELF]
            assert isinstance(shelf, EngineShelf)
            assert sum(len(engines) for engines in shelf.idle.values()) == 2
        commands = log.read_text().splitlines()
    # two engines started once each, told ucinewgame before the first game and as each
    # game ends (for the next: the last one's goes unused), then quit
    assert commands.count("uci") == 2
    assert commands.count("ucinewgame") == 8
    assert commands.count("quit") == 2
    assert not shelf.idle


async def test_an_engine_still_searching_is_not_kept(tmp_path: Path) -> None:
    log = tmp_path / "log"
    slow = f"{FAKE} --delay 60 --log {shlex.quote(str(log))}"
    spec = GameSpec("game-1", settings("--tc", "0.5+0"), ("ai:1", slow), None)
    with trio.fail_after(TIMEOUT * 2):
        async with kit.session() as session:
            record = await kit.play(spec, EventBus())
            assert record.termination is Termination.TIMEOUT and record.fault is not None
            shelf = session.resources[SHELF]
            assert isinstance(shelf, EngineShelf)
            assert not shelf.idle  # stopped (killed: it sleeps) at the end of its game


async def test_a_game_outside_a_session_stops_its_engines(tmp_path: Path) -> None:
    log = tmp_path / "log"
    engine = f"{FAKE} --log {shlex.quote(str(log))}"
    record = await play([engine, engine], "--tc", "5+0", "--max-plies", "4")
    assert record.fault is None
    assert log.read_text().splitlines().count("quit") == 2
