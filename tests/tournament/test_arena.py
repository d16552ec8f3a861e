"""The operator's round-robin among the bots present (hub.tournament.arena), its pure part:
which games may start (`Rota`), forfeits, and a `Field` of any number of games a pair."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from itertools import combinations
from typing import Any

import pytest
import trio
import trio.testing

from hub.declared.browser import SeatDesk
from hub.tournament.arena import ArenaOperator, ArenaRefused, Rota, forfeit_outcome
from hub.tournament.formats import ROUND_ROBIN, Plan
from hub.tournament.schedule import Field, Scheduled
from hub.tournament.tally import Tally
from hub.web.index import GameIndex
from hub.web.site import SiteGame, create_site
from tests.declared.test_site import Bot, http, site_in


def field(players: int, per_pair: int) -> Field:
    names = tuple(f"b{n}" for n in range(players))
    return Field(Plan(ROUND_ROBIN, players), "m", "connect4", names, {}, 7, per_table=per_pair)


def play_out(rota: Rota, players: int) -> tuple[list[Scheduled], int]:
    """Every game, played as soon as it may start (all players always back at once); the
    games in the order played and the most games played at the same time."""
    played: list[Scheduled] = []
    most = 0
    while not rota.over:
        started = rota.ready(set(range(players)))
        assert started, "no game can start, yet the round-robin is not over"
        most = max(most, len(started))
        seated = [p for game in started for p in game.seating]
        assert len(seated) == len(set(seated)), "a player seated in two games at once"
        for game in started:
            rota.done(game)
            played.append(game)
    return played, most


@pytest.mark.parametrize(("players", "per_pair"), [(2, 1), (3, 1), (4, 2), (5, 3), (6, 1)])
def test_every_pair_plays_its_games_with_the_seats_rotated(players: int, per_pair: int) -> None:
    games = field(players, per_pair).schedule({}).games
    assert len(games) == per_pair * players * (players - 1) // 2
    played, most = play_out(Rota(list(games)), players)
    assert sorted(g.index for g in played) == list(range(len(games)))
    assert most == players // 2  # a whole round of the circle method at once
    pairs = Counter(frozenset(g.seating) for g in played)
    assert pairs == dict.fromkeys(map(frozenset, combinations(range(players), 2)), per_pair)
    for pair in pairs:  # the first seat alternates between the two
        firsts = [g.seating[0] for g in played if frozenset(g.seating) == pair]
        assert Counter(firsts) == Counter(
            {min(pair): (per_pair + 1) // 2, max(pair): per_pair // 2}
        ) or Counter(firsts) == Counter({max(pair): (per_pair + 1) // 2, min(pair): per_pair // 2})
    assert [g.spec.game_id for g in played[:1]] == ["m-00000"]


def test_a_game_waits_for_both_players_and_a_busy_player_plays_one_game_at_a_time() -> None:
    rota = Rota(list(field(3, 1).schedule({}).games))
    assert rota.ready({0}) == []  # nobody to play with
    (first,) = rota.ready({0, 1, 2})  # three players: one game, the third has a bye
    idle = ({0, 1, 2} - set(first.seating)).pop()
    assert rota.ready({0, 1, 2}) == []  # the other games each need a busy player
    rota.done(first)
    (second,) = rota.ready({idle, *first.seating})
    assert idle in second.seating
    assert rota.needs(idle) and not rota.over


def test_a_player_who_leaves_forfeits_the_games_it_has_not_started() -> None:
    rota = Rota(list(field(3, 2).schedule({}).games))  # six games, four of them player 2's
    (game,) = rota.ready({0, 1})
    rota.leave(2)
    lost = rota.forfeits()
    assert len(lost) == 4 and all(2 in g.seating for g in lost)
    assert not rota.needs(2) and rota.ready({0, 1, 2}) == []  # (0 and 1 are busy)
    rota.done(game)
    (last,) = rota.ready({0, 1})
    rota.done(last)
    assert rota.over

    tally = Tally(("b0", "b1", "b2"))
    for forfeit in lost:
        outcome = forfeit_outcome(forfeit, {2})
        assert outcome.fault == "disconnect"
        assert outcome.seating[outcome.fault_seat or 0] == 2
        tally.add(outcome)
    assert [tally.players[n].points for n in range(3)] == [2.0, 2.0, 0.0]
    assert tally.players[2].crashes == 4 and tally.players[2].losses == 4


def test_a_game_whose_players_all_left_has_no_result() -> None:
    (game, *_) = field(2, 1).schedule({}).games
    assert forfeit_outcome(game, {0, 1}).aborted


def test_a_field_of_one_game_a_pair_is_over_once_every_game_has_its_points() -> None:
    tournament = field(3, 1)
    games = tournament.schedule({}).games
    points: dict[int, dict[int, float]] = {}
    for game in games:
        assert not tournament.over(points)
        points[game.index] = {game.seating[0]: 1.0, game.seating[1]: 0.0}
    assert tournament.over(points)
    assert len(tournament.table_results(points)) == 3


# -- in memory, on trio's virtual clock: the site's TCP handler and its connect4 server --------


async def test_the_waiting_bots_enter_play_and_one_that_hangs_up_forfeits_the_rest(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with trio.open_nursery() as nursery:
        site, _ = site_in(nursery)
        server = site.servers["connect4"]
        operator = ArenaOperator(server, "secret")
        assert not operator.allowed("") and not operator.allowed("secreT")
        first = Bot(site, nursery, 1)
        await first.receive()
        await first.hello("connect4", name="b0")  # waiting in the queue before the start
        await wait_until(lambda: len(server.queue) == 1)
        with pytest.raises(ArenaRefused, match="1 bot waiting"):
            operator.start(1)
        started = operator.start(1, players=3)
        assert (started["state"], started["players"]) == ("gathering", ["b0"])
        assert len(server.queue) == 0  # (it left the queue for the round-robin)
        bots = [first]
        for number in (1, 2):
            bot = Bot(site, nursery, number + 1)
            await bot.receive()
            await bot.hello("connect4", name=f"b{number}")
            bots.append(bot)
        arena = operator.arena
        assert arena is not None
        await wait_until(lambda: not arena.gathering)
        assert arena.rota is not None and arena.report is not None
        playing = sorted(arena.rota.busy)
        (idle,) = {0, 1, 2} - set(playing)
        await bots[idle].stream.aclose()  # it hangs up before its games
        ends: list[dict[str, Any]] = []

        async def play(bot: Bot) -> None:
            ends.append((await bot.play_out())[1])

        async with trio.open_nursery() as game:
            for number in playing:
                game.start_soon(play, bots[number])
        assert [end["type"] for end in ends] == ["end", "end"]
        await wait_until(lambda: not arena.running)
        report = arena.report
        assert (report.done, report.tally.games, report.aborted) == (3, 3, [])
        rows = {row.name: row for row in report.tally.standings()}
        assert rows[f"b{idle}"].crashes == 2 and rows[f"b{idle}"].points == 0
        assert sum(rows[f"b{n}"].points for n in playing) == 3
        assert operator.json()["state"] == "over"
        assert "every pair plays 1 game" in operator.text() and "Crosstable" in operator.text()
        nursery.cancel_scope.cancel()


async def test_a_round_robin_gathering_bots_stops_when_the_server_drains(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with trio.open_nursery() as nursery:
        site, _ = site_in(nursery)
        operator = ArenaOperator(site.servers["connect4"], "secret")
        assert operator.start(2, players=4)["state"] == "gathering"
        bot = Bot(site, nursery)
        await bot.receive()
        await bot.hello("connect4", name="early")
        await wait_until(lambda: operator.state()["players"] == ["early"])
        with pytest.raises(ArenaRefused, match="being played already"):
            operator.start(1)
        with pytest.raises(ArenaRefused, match="needs two"):
            operator.begin()  # (with one bot entered)
        assert await site.drain(1.0) == 0
        assert await bot.receive() == {"type": "error", "error": "the server is shutting down"}
        assert operator.state()["state"] == "over"
        with pytest.raises(ArenaRefused, match="shutting down"):
            operator.start(1)
        nursery.cancel_scope.cancel()


async def wait_until(condition: Callable[[], bool]) -> None:
    """Once every task waits (the server has done what it was told): ``condition`` holds."""
    await trio.testing.wait_all_tasks_blocked()
    assert condition()


async def test_the_admin_endpoint_needs_the_operator_s_token_and_says_why_it_cannot_start(
    nursery: trio.Nursery,
) -> None:
    site, _ = site_in(nursery)
    server = site.servers["connect4"]
    operator = ArenaOperator(server, "secret")
    games = [
        SiteGame("connect4", "", "2", server.events, SeatDesk(), server, operator=operator),
        SiteGame("pig", "", "2", site.servers["pig"].events, SeatDesk(), site.servers["pig"]),
    ]
    app = create_site(games, {g.name: GameIndex(g.bus) for g in games}, site.status)
    ask = {"games": 1}
    async with http(app) as client:
        assert (await client.post("/pig/admin/round-robin", json=ask)).status_code == 404
        url = "/connect4/admin/round-robin"
        refused = await client.post(url, json=ask)
        assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
        wrong = {"Authorization": "Bearer secreT"}
        assert (await client.post(url, json=ask, headers=wrong)).status_code == 401
        right = {"Authorization": "Bearer secret"}
        bad = await client.post(url, json={"games": True}, headers=right)
        assert bad.status_code == 400
        none = await client.post(url, json=ask, headers=right)
        assert none.status_code == 409 and "0 bots waiting" in none.json()["error"]
        assert operator.arena is None
        assert 'id="standings-link"' not in (await client.get("/connect4/")).text
        opened = await client.post(url, json={"games": 1, "players": 2}, headers=right)
        assert opened.status_code == 200 and opened.json()["state"] == "gathering"
        lobby = (await client.get("/connect4/")).text
        assert 'id="standings-link"' in lobby and 'href="/connect4/match"' in lobby
        standings = (await client.get("/connect4/api/match")).json()
        assert "waiting for bots (0 of 2" in standings["text"]
