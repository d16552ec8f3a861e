"""The draw offer of a browser seat, without a browser: another person's page is asked, a
built-in player answers by its evaluation, a program cannot be asked, a move withdraws
the offer, and an accepted draw ends the match as the game's agreed draw. Also what the
seat's snapshot says of every seat (names where they sit, the mover, the clocks)."""

from __future__ import annotations

import random
from typing import Any

import trio
import trio.testing

from hub.chess.game import ChessGame
from hub.core.model.clock import TimeControl
from hub.core.model.referee import Termination
from hub.core.model.values import PlayerInfo
from hub.core.play.match import Match
from hub.declared.browser import BrowserSeat, SeatDesk
from hub.declared.seats import RandomSeat, ai_seat
from hub.games.connect4 import ConnectFour
from hub.games.kalah.game import KalahGame

AI_BETTER = "3qk3/8/8/8/8/8/8/4K3 w - - 0 1"
AI_WORSE = "4k3/8/8/8/8/8/8/3QK3 w - - 0 1"


async def started(match: Match[Any, Any], nursery: trio.Nursery) -> None:
    nursery.start_soon(match.run)
    await trio.testing.wait_all_tasks_blocked()


async def test_two_people_agree_a_draw_and_a_move_withdraws_an_offer(
    nursery: trio.Nursery,
) -> None:
    game, desk = ChessGame(), SeatDesk()
    white, black = desk.open(game), desk.open(game)
    match = Match(game, game.start(random.Random(0)), [white, black])
    await started(match, nursery)
    assert white.snapshot()["draw"]["possible"]
    assert white.offer_draw() is None
    assert white.offer_draw() == "you offered a draw already"
    assert black.snapshot()["draw"]["offered_by"] == "White"
    assert white.snapshot()["draw"]["you_offered"]
    assert white.submit("e2e4") is None  # White moves on: the offer stands (Black's answer)
    await trio.testing.wait_all_tasks_blocked()
    assert black.snapshot()["draw"]["offered_by"] == "White"
    assert black.submit("e7e5") is None  # Black moves instead of answering: withdrawn
    await trio.testing.wait_all_tasks_blocked()
    assert black.snapshot()["draw"]["offered_by"] == ""
    assert black.offer_draw() is None
    assert white.decline_draw() is None
    assert black.snapshot()["draw"]["note"] == "White declines the draw."
    assert white.offer_draw() is None
    assert black.offer_draw() is None  # accepting the standing offer
    await match.wait_finished()
    assert match.result is not None and match.result.fault is None
    assert match.result.outcome.winners == {0, 1}
    assert match.result.outcome.detail == "by agreement"
    assert white.result == black.result == "a draw (by agreement)"
    assert [player["winner"] for player in white.snapshot()["players"]] == [False, False]
    assert desk.draws == {}  # forgotten with the game


async def test_a_built_in_player_answers_by_its_evaluation(nursery: trio.Nursery) -> None:
    for fen, accepted in ((AI_BETTER, False), (AI_WORSE, True)):
        game = ChessGame({"fen": fen})
        person = SeatDesk().open(game)
        match = Match(game, game.start(random.Random(0)), [person, ai_seat(game, 1, 1)])
        await started(match, nursery)
        assert person.offer_draw() is None
        await trio.testing.wait_all_tasks_blocked()
        assert match.finished is accepted
        if not accepted:
            assert person.snapshot()["draw"]["note"] == "Black (ai:1) declines the draw."
            match.stop(None)
            await match.wait_finished()


async def test_no_offer_without_draws_by_agreement_nor_to_a_program(
    nursery: trio.Nursery,
) -> None:
    game = ConnectFour()
    person = BrowserSeat(game, "t", PlayerInfo("browser", "person"))
    other = RandomSeat(game, random.Random(1), PlayerInfo("random", "ai"))
    match = Match(game, game.start(random.Random(0)), [person, other])
    await started(match, nursery)
    assert not person.snapshot()["draw"]["possible"]
    assert person.offer_draw() == "connect4 has no draws by agreement"
    match.stop(None)
    await match.wait_finished()

    chess_game = ChessGame()
    person = BrowserSeat(chess_game, "u", PlayerInfo("browser", "person"))
    program = RandomSeat(chess_game, random.Random(1), PlayerInfo("bot", "program"))
    match = Match(chess_game, chess_game.start(random.Random(0)), [person, program])
    await started(match, nursery)
    assert person.offer_draw() == "Black (bot) cannot be asked for a draw"
    assert person.resign() is None
    await match.wait_finished()
    assert match.result is not None and match.result.termination is Termination.RESIGNATION


async def test_the_snapshot_names_every_seat_and_counts_down_the_movers_clock(
    nursery: trio.Nursery, autojump_clock: trio.testing.MockClock
) -> None:
    game, desk = ConnectFour(), SeatDesk()
    red, yellow = desk.open(game), desk.open(game)
    match = Match(
        game,
        game.start(random.Random(0)),
        [red, yellow],
        time_control=TimeControl.fischer(60, 0),
    )
    await started(match, nursery)
    await trio.sleep(5)
    bar = red.snapshot()["players"]
    assert [(p["seat"], p["you"], p["to_move"]) for p in bar] == [
        ("Red", True, True),
        ("Yellow", False, False),
    ]
    assert bar[0]["left_ms"] == 55_000 and bar[1]["left_ms"] is None  # (no move yet)
    assert red.submit("4") is None
    await trio.testing.wait_all_tasks_blocked()
    await trio.sleep(2)
    seen_by_red = red.snapshot()["players"]
    assert [p["left_ms"] for p in seen_by_red] == [55_000, 58_000]  # Yellow's runs
    assert yellow.snapshot()["your_turn"]
    match.stop(None)
    await match.wait_finished()


async def test_after_the_pie_swap_the_seat_is_named_where_it_now_sits(
    nursery: trio.Nursery,
) -> None:
    """Seat 1 starts North; once it takes the pie it plays South's row, and its page,
    its bar and its move list say South."""
    game, desk = KalahGame({"pie": True}), SeatDesk()
    first, second = desk.open(game), desk.open(game)
    match = Match(game, game.start(random.Random(0)), [first, second])
    await started(match, nursery)
    assert second.snapshot()["seat_name"] == "North"
    assert first.submit("1") is None
    await trio.testing.wait_all_tasks_blocked()
    assert "P" in second.snapshot()["legal"]
    assert second.submit("P") is None
    await trio.testing.wait_all_tasks_blocked()
    snapshot = second.snapshot()
    assert snapshot["seat_name"] == "South"
    assert [p["seat"] for p in snapshot["players"]] == ["North", "South"]
    assert snapshot["moves"][-1] == "North P"  # (named where it sat when it swapped)
    match.stop(None)
    await match.wait_finished()
