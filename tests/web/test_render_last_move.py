"""The last move marked in Kalah (the holes sown, the pit of the last seed) and clubs (the
card just played, in the trick or in the trick it completed), as Connect Four and chess
mark theirs: in the renderer, in a replay of a recorded game and on a seat's own page."""

from __future__ import annotations

import random
import re
from typing import Any

import trio
import trio.testing

from hub.core.model.values import PlayerInfo
from hub.core.play.match import Match
from hub.declared.browser import SeatDesk
from hub.declared.seats import RandomSeat
from hub.games.clubs.game import ClubsGame
from hub.games.kalah.game import KalahGame
from hub.games.kalah.pictures import last_move_marks
from hub.web.render import Position, render_position
from hub.web.views import ply_json
from tests.web.helpers import clubs_view, kalah_view

PLAYERS = (PlayerInfo("s", "program"), PlayerInfo("n", "program"))
HOLE = re.compile(r'<div class="hole([^"]*)"><b>(\d+)</b><i>(\d+)</i>')


def marked(html: str) -> list[tuple[str, str, str]]:
    """(marks, seeds, hole) of every marked hole, in page order (North first)."""
    return [(marks.strip(), seeds, hole) for marks, seeds, hole in HOLE.findall(html) if marks]


def test_a_kalah_turn_of_two_sowings_marks_both_holes_and_where_the_last_seed_fell() -> None:
    before = kalah_view([1, 2, 3, 0, 4, 5, 6, 0], to_move=0)
    # South sows 2 (into its store: again), then 3 (4 seeds: store, North's 1, 2, 3)
    after = kalah_view([1, 0, 0, 2, 5, 6, 7, 0], to_move=1)
    assert last_move_marks(before, "2 3") == ({(0, 2), (0, 3)}, (1, 3))
    html = render_position(Position("kalah", PLAYERS, after, ply=1, last_move="2 3", before=before))
    assert marked(html) == [("landed", "7", "3"), ("sown", "0", "2"), ("sown", "0", "3")]


def test_a_kalah_sowing_into_the_store_and_the_pie_swap() -> None:
    before = kalah_view([1, 2, 3, 0, 4, 5, 6, 0], to_move=0)
    after = kalah_view([1, 0, 4, 1, 4, 5, 6, 0], to_move=0)
    html = render_position(Position("kalah", PLAYERS, after, last_move="2", before=before))
    assert re.search(r'class="store south landed"[^>]*><b>1<', html)
    assert marked(html) == [("sown", "0", "2")]
    assert last_move_marks(kalah_view([1, 0, 4, 1, 4, 5, 6, 0], 1), "P") == (set(), None)
    unmarked = render_position(Position("kalah", PLAYERS, after))  # no move: nothing marked
    assert marked(unmarked) == [] and "landed" not in unmarked


def test_the_last_card_is_marked_in_the_trick_and_a_completed_trick_is_shown() -> None:
    table = (PlayerInfo("ann", "p"), PlayerInfo("bo", "p"), PlayerInfo("cy", "p"))
    before = clubs_view([["AS"], ["2C", "JD"], ["KD"]], ["QH"], 2, 1, [0, 0, 0])
    after = clubs_view([["AS"], ["2C"], ["KD"]], ["QH", "JD"], 2, 2, [0, 0, 0])
    html = render_position(
        Position("clubs", table, after, last_move="JD", before=before, reveal=False)
    )
    assert re.findall(r'class="card (red|black)( last)?">([^<]+)', html) == [
        ("red", "", "Q\u2665"),
        ("red", " last", "J\u2666"),
    ]
    done = clubs_view([["AS"], ["2C"], []], [], 1, 1, [0, 0, 0])
    html = render_position(
        Position("clubs", table, done, last_move="KD", before=after, reveal=False)
    )
    last_trick = html.split('<ol class="trick last-trick">')[1].split("</ol>")[0]
    assert re.findall(
        r'class="card \w+( last)?">([^<]+)</span> <span class="by">(\w+)', last_trick
    ) == [
        ("", "Q\u2665", "cy"),
        ("", "J\u2666", "ann"),
        (" last", "K\u2666", "bo"),
    ]
    assert "AS" not in html and "A\u2660" not in html  # a live page still hides the hands


def record_of(game: Any, seats: int) -> Any:
    async def main() -> Any:
        players = [RandomSeat(game, random.Random(n), PlayerInfo(f"r{n}")) for n in range(seats)]
        match = Match(game, game.start(random.Random(7)), players)
        return (await match.run()).record

    return trio.run(main)


def html_at(record: Any, ply: int) -> str:
    shown = ply_json(record, ply)
    assert shown is not None
    return str(shown["html"])


def test_replays_of_recorded_games_mark_each_ply_s_move() -> None:
    kalah = record_of(KalahGame({"holes": 4, "seeds": 3}), 2)
    first = html_at(kalah, 1)
    assert "sown" in first and "landed" in first
    assert "sown" not in html_at(kalah, 0)
    clubs = record_of(ClubsGame(seats=3), 3)
    assert 'class="card' in html_at(clubs, 1)
    assert " last" in html_at(clubs, 1)
    completed = html_at(clubs, 3)
    assert "Last trick:" in completed and completed.count(" last") >= 1


async def test_a_seat_s_own_page_marks_the_opponent_s_last_move(nursery: trio.Nursery) -> None:
    game = KalahGame({"holes": 4, "seeds": 3})
    seat = SeatDesk().open(game)
    other = RandomSeat(game, random.Random(0), PlayerInfo("random"))
    match = Match(game, game.start(random.Random(0)), [other, seat])
    nursery.start_soon(match.run)
    await trio.testing.wait_all_tasks_blocked()
    html = seat.snapshot()["html"]
    assert seat.snapshot()["moves"] and "sown" in html and "landed" in html
    match.stop(None)
