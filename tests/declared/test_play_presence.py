"""``hub play GAME web ...`` waits for its people as the lobby does (in memory, on trio's
virtual clock): a web seat's clock starts only once its page is open, the terminal says
whom it waits for, a person who never comes calls the game off (nothing played or
recorded), and a page gone mid-game ends it as a disconnect."""

from __future__ import annotations

import argparse

import trio
import trio.testing

from hub.core.io.output import LinesOutput, Output
from hub.core.model.clock import TimeControl
from hub.core.model.referee import Termination
from hub.declared.browser import ARRIVAL, GRACE, BrowserSeat
from hub.declared.play import LocalResources
from hub.declared.seats import parse_seat
from hub.games.connect4 import ConnectFour
from tests.declared.test_rematch import Log


def host_in(nursery: trio.Nursery, control: TimeControl) -> tuple[LocalResources, Log, list[str]]:
    said: list[str] = []
    options = argparse.Namespace(port=("127.0.0.1", 0))
    host = LocalResources(ConnectFour(), nursery, Output(1), LinesOutput(said.extend), options)
    host.web_url = lambda path: f"http://127.0.0.1:1{path}"
    host.control, host.arrival = control, ARRIVAL
    return host, Log(host.bus), said


async def start(host: LocalResources, *seats: str) -> tuple[list[bool], list[BrowserSeat]]:
    """Start ``hub play``'s game of ``seats`` in the host's nursery: whether it was played
    (once it returns), and its browser seats."""
    played: list[bool] = []
    specs = [parse_seat(text, ConnectFour) for text in seats]

    async def play() -> None:
        played.append(await host.play_game(specs, 5, []))

    host.nursery.start_soon(play)
    await trio.testing.wait_all_tasks_blocked()
    return played, list(host.desk.seats.values())


async def test_the_clock_starts_only_when_the_page_is_open_and_the_terminal_says_so(
    autojump_clock: trio.testing.MockClock, nursery: trio.Nursery
) -> None:
    host, log, said = host_in(nursery, TimeControl.fischer(60))
    _, (mine,) = await start(host, "web", "random")
    await trio.sleep(100)  # the person has not opened the printed link yet
    assert log.started == [] and mine.snapshot()["seat_name"] == "Red"
    assert said[-1] == (
        "hub play connect4: waiting for Red (browser) to open their page in the browser: "
        "no clock runs until then"
    )
    with mine.attend():
        await trio.testing.wait_all_tasks_blocked()
        assert len(log.started) == 1 and mine.snapshot()["left_ms"] == 60_000


async def test_two_people_each_page_says_whom_it_waits_for(
    autojump_clock: trio.testing.MockClock, nursery: trio.Nursery
) -> None:
    host, log, said = host_in(nursery, TimeControl())
    _, (red, yellow) = await start(host, "web", "web")
    with red.attend():
        await trio.testing.wait_all_tasks_blocked()
        assert red.snapshot()["waiting"] == (
            "Waiting for Yellow (browser) to open their page: no clock runs until then."
        )
        assert "waiting for Yellow (browser) to open" in said[-1] and log.started == []
        with yellow.attend():
            await trio.testing.wait_all_tasks_blocked()
            assert len(log.started) == 1 and red.snapshot()["waiting"] == ""


async def test_a_person_who_never_comes_calls_the_game_off_and_nothing_is_recorded(
    autojump_clock: trio.testing.MockClock, nursery: trio.Nursery
) -> None:
    host, log, said = host_in(nursery, TimeControl.fischer(60))
    played, (mine,) = await start(host, "web", "ai:1")
    await trio.sleep(ARRIVAL - 1)
    assert played == [] and not mine.over
    await trio.sleep(2)
    assert played == [False] and log.started == [] and log.ended == []
    assert mine.over and mine.result == "You did not come in time: no game was played."
    assert said[-1] == (
        "hub play connect4: the game is called off: Red (browser) did not open their page "
        "within 300 seconds (nothing was played or recorded)"
    )


async def test_a_page_gone_mid_game_ends_it_as_a_disconnect_without_clocks(
    autojump_clock: trio.testing.MockClock, nursery: trio.Nursery
) -> None:
    host, log, _ = host_in(nursery, TimeControl())  # --tc none
    played, (red, yellow) = await start(host, "web", "web")
    with red.attend():
        with yellow.attend():
            await trio.testing.wait_all_tasks_blocked()
            assert red.submit(red.snapshot()["legal"][0]) is None
            await trio.testing.wait_all_tasks_blocked()
        await trio.sleep(GRACE * 0.9)  # Yellow's tab closed on their turn
        assert log.ended == []
        await trio.sleep(GRACE * 0.2)
        assert played == [True]
        (ended,) = log.ended
        assert ended.record.termination is Termination.DISCONNECT
        assert ended.record.winners == (0,) and red.over and yellow.over
