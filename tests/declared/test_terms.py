"""Choosing a game's time control and options within the operator's limits (issue 27 item
1): the limits' checks (hub.declared.terms), a JSON bot's hello over memory streams, and
``POST /new`` and the lobby page over httpx's ASGI transport. A choice outside the limits is
refused with words that say what is allowed; each choice waits in its own queue; the game is
played, and recorded, with the choice."""

from __future__ import annotations

from functools import partial
from typing import Any

import httpx
import pytest
import trio
import trio.testing

from hub.core.model.bus import EventBus
from hub.core.model.clock import TimeControl
from hub.core.model.events import GameStarted
from hub.core.play.game import SettingsError
from hub.declared import serve as declared_serve
from hub.declared import site as declared_site
from hub.declared.browser import SeatDesk
from hub.declared.serve import GameServer
from hub.declared.terms import (
    TC_CHOICES,
    Offer,
    Terms,
    TermsError,
    offer_from,
    offerable,
    offered_options,
    tc_choices,
)
from hub.games.clubs.game import ClubsGame
from hub.games.connect4 import ConnectFour
from hub.games.kalah.game import KalahGame
from hub.web.app import create_app
from hub.web.index import GameIndex
from hub.web.limits import ClientLimits
from tests.declared.test_names import SITE, converse

ONE_MINUTE = TimeControl.parse("60+1")


def connect4_offer(tcs: str | None = "180+2,300+3", offer: str | None = None) -> Offer:
    return offer_from(ConnectFour(), ONE_MINUTE, tcs, offer)


# -- the limits ----------------------------------------------------------------------------


def test_only_switches_bounded_numbers_and_choices_are_offered_never_free_text() -> None:
    assert [o.name for o in KalahGame.options if offerable(o)] == [
        "holes",
        "seeds",
        "pie",
        "random",
    ]
    assert [o.name for o in ConnectFour.options if offerable(o)] == ["rows", "columns", "connect"]
    assert "deck" not in [o.name for o in ClubsGame.options if offerable(o)]  # a file
    assert [o.name for o in offered_options(None, KalahGame)] == ["holes", "seeds", "pie", "random"]
    assert offered_options("none", KalahGame) == ()
    assert [o.name for o in offered_options("pie,holes,pie", KalahGame)] == ["pie", "holes"]
    with pytest.raises(SettingsError, match="kalah cannot offer 'layout'"):
        offered_options("holes,layout", KalahGame)


def test_the_time_controls_put_the_servers_first_each_once() -> None:
    default = tc_choices(None, ONE_MINUTE)
    assert [c.describe() for c in default] == ["60+1", *TC_CHOICES]
    assert [c.describe() for c in tc_choices("180+2,60+1,180+2", ONE_MINUTE)] == ["60+1", "180+2"]
    with pytest.raises(SettingsError, match="bad time control"):
        tc_choices("180+2,fast", ONE_MINUTE)
    with pytest.raises(SettingsError, match="at most 12"):
        tc_choices(",".join(f"{n}+0" for n in range(1, 20)), ONE_MINUTE)


def test_a_choice_within_the_limits_is_its_terms_and_the_same_choice_the_same_key() -> None:
    offer = connect4_offer()
    assert offer.default == Terms(ONE_MINUTE, (("columns", 7), ("connect", 4), ("rows", 6)))
    assert offer.terms() == offer.terms("", {}) == offer.default
    chosen = offer.terms("180+2", {"rows": "5"})
    assert chosen == offer.terms("180+2.0", {"rows": 5, "columns": 7})
    assert chosen.control == TimeControl.fischer(180, 2)
    assert dict(chosen.settings) == {"rows": 5, "columns": 7, "connect": 4}
    assert chosen.describe() == "180+2, columns 7, connect 4, rows 5"
    assert hash(chosen) == hash(offer.terms("180+2", {"rows": 5}))


@pytest.mark.parametrize(
    ("tc", "settings", "words"),
    [
        ("5+0", None, "the time control 5+0 is not offered here: one of 60+1, 180+2, 300+3"),
        ("fast", None, "no time control 'fast' here: one of 60+1, 180+2, 300+3"),
        (180, None, "tc must be a time control's text"),
        (None, {"rows": 13}, "rows must be at most 12, not 13"),
        (None, {"rows": "six"}, "rows must be a whole number, not 'six'"),
        (None, {"rows": True}, "rows must be a whole number"),
        (None, {"depth": 3}, "the option 'depth' is not offered (offered: rows, columns, connect)"),
        (None, ["rows", 5], "settings must be an object"),
        (None, {"rows": "9" * 50}, "rows: too long"),
    ],
)
def test_a_choice_outside_the_limits_is_refused_saying_what_is_allowed(
    tc: object, settings: object, words: str
) -> None:
    with pytest.raises(TermsError) as refused:
        connect4_offer().terms(tc, settings)
    assert words in str(refused.value)


def test_an_option_the_operator_does_not_offer_is_refused() -> None:
    offer = connect4_offer(offer="rows")
    assert offer.terms(None, {"rows": 5}).settings == (("rows", 5),)
    with pytest.raises(TermsError, match=r"'columns' is not offered \(offered: rows\)"):
        offer.terms(None, {"columns": 5})
    with pytest.raises(TermsError, match="offered: none"):
        connect4_offer(offer="none").terms(None, {"rows": 5})


def test_the_command_lines_limits_and_their_usage_errors() -> None:
    assert declared_serve.main(ConnectFour, ["--tc-choices", "180+2,fast"]) == 2
    assert declared_serve.main(KalahGame, ["--offer", "layout"]) == 2
    games = {"connect4": ConnectFour, "kalah": KalahGame}
    options = declared_site.parser(list(games)).parse_args(
        ["--tc", "30+0", "--tc-choices", "kalah=180+2", "--offer", "connect4=rows"]
    )
    served, controls = declared_site.build(games, options)
    offers = declared_site.offers(served, controls, options)
    assert [c.describe() for c in offers["kalah"].controls] == ["30+0", "180+2"]
    assert [c.describe() for c in offers["connect4"].controls] == ["30+0", *TC_CHOICES]
    assert [o.name for o in offers["connect4"].options] == ["rows"]
    assert [o.name for o in offers["kalah"].options] == ["holes", "seeds", "pie", "random"]
    bad = declared_site.parser(list(games)).parse_args(["--offer", "chess=pie"])
    with pytest.raises(ValueError, match="'chess' is not served"):
        declared_site.offers(served, controls, bad)


# -- a JSON bot's hello ----------------------------------------------------------------------


def lobby(nursery: trio.Nursery | None = None) -> GameServer:
    return GameServer(
        ConnectFour(),
        ONE_MINUTE,
        EventBus(),
        nursery=nursery,
        desk=SeatDesk(),
        offer=connect4_offer(),
    )


async def test_a_bot_plays_on_the_time_control_and_options_its_hello_asks_for() -> None:
    server = lobby()
    hello = {"type": "hello", "name": "b1", "opponent": "ai:1", "tc": "180+2"}
    replies, started = await converse(server, {**hello, "settings": {"rows": 5}}, play=True)
    assert replies[-1]["type"] == "end"
    assert started[0].time_controls == ("180+2", "180+2")
    assert started[0].settings == {"rows": 5, "columns": 7, "connect": 4}
    _, default = await converse(server, {"type": "hello", "name": "b2", "opponent": "ai:1"})
    assert default[0].time_controls == ("60+1", "60+1") and default[0].settings["rows"] == 6


@pytest.mark.parametrize(
    ("asked", "words"),
    [
        ({"tc": "1+0"}, "the time control 1+0 is not offered here: one of 60+1, 180+2, 300+3"),
        ({"settings": {"rows": 40}}, "rows must be at most 12, not 40"),
        ({"settings": 5}, "settings must be an object of the game's options"),
        ({"tc": 5}, "name, opponent, game, tc and resume must be strings"),
    ],
)
async def test_a_hello_outside_the_limits_is_an_error_and_the_connection_closes(
    asked: dict[str, Any], words: str
) -> None:
    server = lobby()
    replies, started = await converse(server, {"type": "hello", "name": "b", **asked})
    assert replies == [{"type": "error", "error": words}] and not started


async def test_next_to_arrive_pairs_only_bots_that_asked_for_the_same_choice(
    nursery: trio.Nursery,
) -> None:
    server = lobby(nursery)
    started: list[GameStarted] = []
    seated = trio.Event()

    def on(event: object) -> None:
        if isinstance(event, GameStarted):
            started.append(event)
            seated.set()

    server.events.listen(on)
    asked = [
        ("fast", {"tc": "180+2"}),
        ("slow", {"tc": "300+3"}),
        ("small", {"tc": "180+2", "settings": {"rows": 5}}),
    ]
    for name, choice in asked:
        hello = {"type": "hello", "name": name, **choice}
        nursery.start_soon(partial(converse, server, hello, play=True))
    with trio.fail_after(5):
        while sum(len(queue) for queue in server.queues.values()) < 3:
            await trio.testing.wait_all_tasks_blocked()
    assert not started and len(server.queues) == 4  # (the server's own, empty, and three)
    assert server.waiting == 3 and len(server.queue) == 0
    hello = {"type": "hello", "name": "too", "tc": "180+2"}
    nursery.start_soon(partial(converse, server, hello, play=True))
    with trio.fail_after(5):
        await seated.wait()
    assert [p.name for p in started[0].players] == ["fast", "too"]
    assert started[0].time_controls == ("180+2", "180+2") and started[0].settings["rows"] == 6
    nursery.cancel_scope.cancel()


# -- the lobby page and POST /new ------------------------------------------------------------


def client(app: Any) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=("10.0.0.1", 40000))
    return httpx.AsyncClient(transport=transport, base_url=SITE)


def web(server: GameServer) -> Any:
    return create_app(
        GameIndex(), desk=server.desk, host=server, limits=ClientLimits(clock=lambda: 0.0)
    )


async def test_the_lobby_page_offers_the_time_controls_and_options_with_their_defaults(
    nursery: trio.Nursery,
) -> None:
    async with client(web(lobby(nursery))) as http:
        page = (await http.get("/")).text
    assert '<select id="tc" name="tc"' in page
    assert '<option value="60+1">60+1</option><option value="180+2">180+2</option>' in page
    assert 'data-setting="rows" data-kind="int" step="1" min="4" max="12" value="6"' in page
    assert 'data-setting="connect"' in page


async def test_post_new_refuses_a_choice_outside_the_limits_with_a_400(
    nursery: trio.Nursery,
) -> None:
    server = lobby(nursery)
    async with client(web(server)) as http:
        for body, words in [
            ({"tc": "1+0"}, "the time control 1+0 is not offered here"),
            ({"settings": {"rows": 99}}, "rows must be at most 12, not 99"),
            ({"settings": {"deck": "/etc/passwd"}}, "the option 'deck' is not offered"),
            ({"settings": "rows=5"}, "settings must be an object"),
        ]:
            refused = await http.post("/new", json={"opponent": "ai:1", **body})
            assert refused.status_code == 400 and words in refused.json()["error"], body
    assert server.games == 0 and not server.running


async def test_a_friend_link_carries_the_creators_choice(nursery: trio.Nursery) -> None:
    server = lobby(nursery)
    async with client(web(server)) as http:
        reply = await http.post(
            "/new", json={"opponent": "friend", "tc": "300+3", "settings": {"rows": 5}}
        )
    assert reply.status_code == 200
    assert server.desk is not None
    mine = server.desk.find(reply.json()["play"].rsplit("/", 1)[1])
    theirs = server.desk.find(reply.json()["share"].rsplit("/", 1)[1])
    assert mine is not None and theirs is not None
    for seat in (mine, theirs):
        assert seat.game.settings == {"rows": 5, "columns": 7, "connect": 4}  # type: ignore[attr-defined]
    started: list[GameStarted] = []
    server.events.listen(
        lambda event: started.append(event) if isinstance(event, GameStarted) else None
    )
    with trio.fail_after(5):
        while mine.resign() is not None:  # type: ignore[attr-defined]
            await mine.wait_changed(mine.version)
    assert started[0].time_controls == ("300+3", "300+3")
    assert started[0].settings["rows"] == 5
