"""The browser seat: a person plays in a browser through the same seat interface as any
other; its page offers only the legal moves (elements with data-move), a token is the seat,
hidden information reaches only its owner, bad requests are 4xx, and a silent page costs the
seat its clock without slowing any other game (virtual clock)."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import attrs
import chess
import httpx
import pytest
import trio
import trio.testing

from hub.core.model.bus import EventBus
from hub.core.model.clock import TimeControl
from hub.core.model.referee import IllegalMove, Outcome, Termination
from hub.core.model.values import PlayerInfo
from hub.core.play.game import Game
from hub.core.play.match import Match
from hub.declared.browser import SeatDesk
from hub.declared.seats import RandomSeat
from hub.games.connect4 import ConnectFour
from hub.web.server import WebServer, serve_web
from tests.conftest import need_stockfish, program
from tests.web.browser import PHONE, artifacts, expect, run_in_browser

ROOT = Path(__file__).resolve().parents[2]
SECRETS = ("ZEBRA-SECRET", "YAK-SECRET")


@attrs.frozen
class Table:
    secrets: tuple[str, str]
    guesses: tuple[str, ...] = ()


class Secrets(Game[Table, str]):
    """Each seat holds a word only it may see; three guesses each, then a draw."""

    name = "secrets"
    summary = "hidden words"

    def start(self, rng: random.Random) -> Table:
        return Table(SECRETS)

    def to_move(self, state: Table) -> int | None:
        return None if len(state.guesses) >= 6 else len(state.guesses) % 2

    def legal_moves(self, state: Table) -> list[str]:
        return [] if self.to_move(state) is None else ["a", "b"]

    def apply(self, state: Table, move: str) -> Table:
        if move not in self.legal_moves(state):
            raise IllegalMove(move)
        return Table(state.secrets, (*state.guesses, move))

    def outcome(self, state: Table) -> Outcome | None:
        return None if self.to_move(state) is not None else Outcome([1, 1], [0, 1])

    def view(self, state: Table, seat: int | None = None) -> dict[str, Any]:
        mine = None if seat is None else state.secrets[seat]
        return {"guesses": list(state.guesses), "mine": mine}

    def html(self, view: Any) -> str:
        return f"<p>{view['mine']}</p>" + "".join(
            f'<button data-move="{m}">{m}</button>' for m in "ab"
        )


async def test_a_token_is_its_seat_and_a_hidden_word_reaches_only_its_owner(
    nursery: trio.Nursery,
) -> None:
    game, desk, bus = Secrets(), SeatDesk(), EventBus()
    server: WebServer = await nursery.start(partial(serve_web, bus, desk=desk))
    seats = [desk.open(game), desk.open(game)]
    match = Match(game, game.start(random.Random(0)), seats, events=bus)
    nursery.start_soon(match.run)
    await trio.testing.wait_all_tasks_blocked()
    red, blue = (seat.token for seat in seats)
    async with httpx.AsyncClient(timeout=10) as client:

        async def text(path: str) -> str:
            reply = await client.get(server.url(path))
            return reply.text

        async def first_frame(path: str) -> str:
            async with client.stream("GET", server.url(path)) as reply:
                async for line in reply.aiter_lines():
                    if line.startswith("data:"):
                        return line
            return ""

        async def post(token: str, body: bytes, **headers: str) -> int:
            headers.setdefault("content-type", "application/json")
            reply = await client.post(
                server.url(f"/play/{token}/move"), content=body, headers=headers
            )
            return reply.status_code

        assert SECRETS[0] in await text(f"/play/{red}") and SECRETS[0] in await first_frame(
            f"/play/{red}/events"
        )
        for path in [
            "/",
            "/api/games",
            f"/api/game/{match.game_id}",
            f"/game/{match.game_id}",
            f"/api/game/{match.game_id}/ply/0",
            f"/play/{blue}",
        ]:
            assert SECRETS[0] not in await text(path), path
        for path in ["/events", f"/game/{match.game_id}/events", f"/play/{blue}/events"]:
            assert SECRETS[0] not in await first_frame(path), path

        assert await post("nosuchtoken", b'{"move":"a"}') == 404  # a spectator has no token
        assert await post(blue, b'{"move":"a"}') == 409  # the other seat: not its turn
        assert await post(red, b'{"move":"a"}', **{"content-type": "text/plain"}) == 415
        assert await post(red, b'{"move":"a"}', origin="http://elsewhere.example") == 403
        assert await post(red, b'{"move":"a"}', **{"sec-fetch-site": "cross-site"}) == 403
        assert await post(red, b"x" * 5000) == 413
        assert await post(red, b"[1, 2") == 400
        assert await post(red, b'{"move": 3}') == 400
        assert await post(red, b'{"move":"zz"}') == 200  # taken to the game, which refuses it
        await trio.testing.wait_all_tasks_blocked()
        assert "not a move of secrets" in seats[0].snapshot()["error"]
        assert len(match.moves) == 0
        assert await post(red, b'{"move":"a"}') == 200
        await trio.testing.wait_all_tasks_blocked()
        assert match.moves == [(0, "a")]
        assert (await client.get(server.url("/"))).status_code == 200  # the server is up
    match.stop(None)


async def test_a_silent_page_costs_its_seat_the_clock_and_slows_no_other_game(
    autojump_clock: trio.testing.MockClock,
) -> None:
    game = ConnectFour()
    silent = SeatDesk().open(game)
    stalled = Match(
        game,
        game.start(random.Random(0)),
        [silent, RandomSeat(game, random.Random(1), PlayerInfo("random"))],
        time_control=TimeControl(per_move=30),
    )
    other = Match(
        game,
        game.start(random.Random(0)),
        [RandomSeat(game, random.Random(seat), PlayerInfo("random")) for seat in (2, 3)],
        time_control=TimeControl(per_move=30),
    )
    ended: dict[str, float] = {}

    async def run(name: str, match: Match[Any, Any]) -> None:
        await match.run()
        ended[name] = trio.current_time()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(run, "stalled", stalled)
        nursery.start_soon(run, "other", other)
    assert stalled.result is not None and stalled.result.fault is not None
    assert (stalled.result.fault.seat, stalled.result.fault.termination) == (0, Termination.TIMEOUT)
    assert ended["stalled"] == pytest.approx(30)
    assert ended["other"] == 0  # played out at once, whatever the page did


def play_through(page: Any, url: str, *, shots: str, phone: bool = False) -> str:
    """Click legal moves (any element with data-move and class legal) until the game ends."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.goto(url)
    result = page.locator("#result")
    for _ in range(200):
        if result.inner_text().strip():
            break
        legal = page.locator("[data-move].legal")
        try:
            legal.first.wait_for(timeout=5000)
        except PlaywrightTimeout:  # the game may have ended meanwhile
            continue
        if result.inner_text().strip():
            break
        legal.first.click()
        page.wait_for_timeout(50)
    expect(result).not_to_be_empty()
    page.screenshot(path=artifacts() / f"{shots}.png", full_page=True)
    if phone:
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    return str(result.inner_text())


@pytest.mark.browser
@pytest.mark.parametrize("viewport", ["desktop", "phone"])
async def test_a_person_plays_connect4_in_the_browser_against_the_ai(viewport: str) -> None:
    process = subprocess.Popen(
        [program("hub"), "play", "connect4", "web", "ai:2", "--web", "0", "--seed", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        lines: Sequence[str] = [process.stderr.readline(), process.stderr.readline()]
        assert "Red plays in the browser at http://127.0.0.1:" in lines[1]
        url = lines[1].rsplit(" at ", 1)[1].strip()
        kwargs = {"viewport": PHONE} if viewport == "phone" else {}
        result = await run_in_browser(
            lambda page: play_through(
                page, url, shots=f"connect4-web-{viewport}", phone=viewport == "phone"
            ),
            **kwargs,
        )
        assert "wins" in result or "draw" in result
        while "stays up" not in (line := process.stderr.readline()):
            assert line, "hub play ended without keeping its page up"
    finally:
        process.send_signal(2)
        assert process.wait(timeout=30) == 130


@pytest.mark.browser
async def test_hub_play_starts_the_clock_only_once_the_person_opened_the_page() -> None:
    """``hub play GAME web ai:N --web 0``: the terminal says it waits for the person's page,
    no game runs until it is open, and the clock is whole when it is."""
    argv = ["play", "connect4", "web", "ai:1", "--web", "0", "--tc", "60+0", "--seed", "3"]
    process = subprocess.Popen(
        [program("hub"), *argv, "--no-record"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        site = process.stderr.readline().strip()
        url = process.stderr.readline().rsplit(" at ", 1)[1].strip()
        assert process.stderr.readline() == (
            "hub play connect4: waiting for Red (browser) to open their page in the browser: "
            "no clock runs until then\n"
        )
        async with httpx.AsyncClient(timeout=10) as client:
            lobby = (await client.get(f"{site.rstrip('/')}/api/games")).json()
        assert lobby["running"] == []  # no game (and no clock) before the page is open

        def script(page: Any) -> tuple[str, str]:
            page.goto(url)
            expect(page.locator("#turn")).to_have_text("Your move (Red).")
            expect(page.locator("#bar .you .clock")).to_contain_text(":")
            clock = str(page.locator("#bar .you .clock").inner_text())
            return clock, play_through(page, url, shots="connect4-web-after-waiting")

        clock, result = await run_in_browser(script)
        minutes, seconds = clock.split(":")
        assert minutes == "1" or float(seconds) > 50, clock
        assert "wins" in result or "draw" in result
    finally:
        process.send_signal(2)
        assert process.wait(timeout=30) == 130


def type_a_move(page: Any) -> bool:
    """Type the first move the move box suggests (its datalist: the legal moves' words);
    False if it suggests none."""
    options = page.locator("#legal-list option")
    if not options.count():
        return False
    page.locator("#move-input").fill(str(options.first.get_attribute("value")))
    page.locator("#move-input").press("Enter")
    return True


def drive(pages: Sequence[Any], *, shots: str) -> list[str]:
    """Click a legal move on whichever page offers one until every page shows a result.

    A page drops its legal marks the moment its move is clicked (play.js), so a page that
    shows one is on its turn; when none does, wait a moment on the first page (a page that is
    not on its turn is never waited on, which cost a fixed wait a move). Two pages play
    opposite ends of the legal moves (Connect Four's first and last columns: a short game,
    one stacks four). With several pages, the one acted on is brought to the front first, as
    a person looks at the tab they click: Chromium throttles a background tab's frames, and
    Playwright's click waits for two of them (a second a click, not a fraction)."""
    results = [page.locator("#result") for page in pages]
    for _ in range(4000):
        if all(result.inner_text().strip() for result in results):
            break
        acted = False
        for number, page in enumerate(pages):
            legal = page.locator("[data-move].legal")
            if len(pages) > 1 and (legal.count() or page.locator("#movebox:not([hidden])").count()):
                page.bring_to_front()
            if legal.count():  # the first page its first move, the others their last
                (legal.first if number == 0 else legal.last).click()
            elif not (
                page.locator("#movebox:not([hidden])").count() and type_a_move(page)
            ):  # a move made of parts (chess's squares) is typed
                continue
            acted = True
        if not acted:
            pages[0].wait_for_timeout(15)
    for number, page in enumerate(pages):
        expect(page.locator("#result")).not_to_be_empty()
        page.screenshot(path=artifacts() / f"{shots}-{number}.png", full_page=True)
    return [str(result.inner_text()) for result in results]


async def start_server(*args: str) -> tuple[subprocess.Popen[str], str, str]:
    """``hub serve connect4 --web 0 ...``: the process, its TCP port and its web URL."""
    process = subprocess.Popen(
        [program("hub"), "serve", "connect4", "--web", "0", "--tc", "none", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    port = process.stderr.readline().strip()
    url = process.stderr.readline().strip()
    assert port.isdigit() and url.startswith("http://127.0.0.1:"), (port, url)
    return process, port, url


def stop(process: subprocess.Popen[str]) -> None:
    process.send_signal(2)
    assert process.wait(timeout=30) == 130


@pytest.mark.browser
async def test_two_browsers_meet_in_the_lobby_and_play_each_other() -> None:
    process, _, url = await start_server()
    try:

        def script(page: Any) -> tuple[list[str], str]:
            other = page.context.new_page()
            for each in (page, other):
                each.goto(url)
                each.locator('button[data-opponent="any"]').click()
                each.wait_for_url("**/play/*")
            spectator = page.context.new_page()  # follows the game from the lobby
            spectator.goto(url)
            spectator.locator("#running tr a").first.click()
            spectator.wait_for_url("**/game/*")
            results = drive([page, other], shots="connect4-two-browsers")
            expect(spectator.locator("#result")).not_to_be_empty()
            spectator.screenshot(path=artifacts() / "connect4-spectator.png", full_page=True)
            return results, str(spectator.locator("#result").inner_text())

        (first, second), watched = await run_in_browser(script)
        assert first == second and ("wins" in first or "draw" in first)
        assert "wins" in watched or "draw" in watched  # the spectator saw the end
    finally:
        stop(process)


@pytest.mark.browser
async def test_a_browser_plays_the_ai_and_a_friend_gets_a_link(records_database: Path) -> None:
    process, _, url = await start_server()
    try:

        def script(page: Any) -> tuple[list[str], list[str]]:
            page.goto(url)
            page.locator('button[data-opponent="ai:1"]').click()
            page.wait_for_url("**/play/*")
            against_ai = drive([page], shots="connect4-lobby-ai")
            page.goto(url)
            page.locator('button[data-opponent="person"]').click()
            page.wait_for_url("**/play/*")
            link = page.locator(".share a").inner_text()
            friend = page.context.new_page()
            friend.goto(link)
            return against_ai, drive([page, friend], shots="connect4-friend")

        against_ai, with_friend = await run_in_browser(script)
        assert "wins" in against_ai[0] or "draw" in against_ai[0]
        assert with_friend[0] == with_friend[1]
    finally:
        stop(process)


@pytest.mark.browser
async def test_a_tcp_program_and_a_browser_play_each_other() -> None:
    process, port, url = await start_server()
    bot = None
    try:

        def script(page: Any) -> list[str]:
            nonlocal bot
            page.goto(url)
            page.locator('button[data-opponent="any"]').click()
            page.wait_for_url("**/play/*")
            bot = subprocess.Popen(
                [
                    sys.executable,
                    str(ROOT / "players" / "json_bot.py"),
                    "--connect",
                    f"127.0.0.1:{port}",
                    "--name",
                    "tcpbot",
                ]
            )
            return drive([page], shots="connect4-browser-vs-tcp")

        (result,) = await run_in_browser(script)
        assert "tcpbot" in result or "draw" in result or "browser" in result
        assert bot is not None and bot.wait(timeout=30) == 0
    finally:
        stop(process)


@pytest.mark.browser
@pytest.mark.parametrize(
    ("name", "argv"),
    [
        ("kalah-pie", ["kalah", "web", "ai:3", "--pie", "yes"]),
        ("clubs", ["clubs", "web", "ai", "random", str(ROOT / "players" / "json_bot.py")]),
    ],
)
async def test_a_person_plays_each_seed_game_in_the_browser(name: str, argv: list[str]) -> None:
    """The same driver for every game: click [data-move].legal until #result says who won."""
    process = subprocess.Popen(
        [program("hub"), "play", *argv, "--web", "0", "--seed", "3", "--no-record"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        while "plays in the browser at" not in (line := process.stderr.readline()):
            assert line, "no seat URL"
        url = line.rsplit(" at ", 1)[1].strip()
        (result,) = await run_in_browser(lambda page: drive_from(page, url, name))
        assert "wins" in result or "draw" in result or "win" in result, result
    finally:
        process.send_signal(2)
        assert process.wait(timeout=30) == 130


def drive_from(page: Any, url: str, name: str) -> list[str]:
    page.goto(url)
    return drive([page], shots=f"{name}-web")


SHORT_GAME = "6R1/8/5R2/1Rp4k/3p4/3P1PP1/4PKP1/4NBN1 w - - 0 1"
"""White to play e4; Black's only legal move is then d4xe3 en passant, check (the c5 pawn is
pinned, the king on h5 boxed in by the rooks), and White's king must take on e3 or go to e2:
either leaves Black's king without a move, stalemate. Every line: 1. e4 dxe3+ 2. K any, a
draw (checked with python-chess in `test_the_short_chess_game_ends_three_plies_after_e4`)."""


def test_the_short_chess_game_ends_three_plies_after_e4() -> None:
    board = chess.Board(SHORT_GAME)
    board.push_san("e4")
    assert [board.san(move) for move in board.legal_moves] == ["dxe3+"]
    board.push_san("dxe3")
    answers = list(board.legal_moves)
    assert sorted(board.san(move) for move in answers) == ["Ke2", "Kxe3"]
    for move in answers:
        board.push(move)
        assert board.is_stalemate()
        board.pop()


@pytest.mark.browser
@pytest.mark.parametrize("opponent", ["ai:1", "uci:stockfish"])
async def test_a_person_plays_chess_in_the_browser_by_clicking_squares(opponent: str) -> None:
    """Click a piece, then a square (e2, e4), then play on to the end, against a built-in
    level and against Stockfish (a ``uci:`` seat of the chess declaration). The game starts
    from `SHORT_GAME`, where it ends three plies after e4 whatever either side plays: the
    opponent's one legal answer is en passant with check, and the move typed after it is one
    of two king moves, both stalemate (a game from the initial position is hundreds of
    typed moves: over a minute)."""
    if opponent.startswith("uci:"):
        need_stockfish()
    process = subprocess.Popen(
        [
            *(program("hub"), "play", "chess", "web", opponent, "--fen", SHORT_GAME),
            *("--seed", "1", "--web", "0", "--no-record"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        while "plays in the browser at" not in (line := process.stderr.readline()):
            assert line, "no seat URL"
        url = line.rsplit(" at ", 1)[1].strip()

        def script(page: Any) -> list[str]:
            page.goto(url)
            page.locator('[data-part="e2"].part').click()
            page.locator('[data-part="e4"].part').click()
            expect(page.locator("#moves li").first).to_have_text(
                "1. e4"
            )  # SAN after its move number
            return drive([page], shots=f"chess-web-{opponent.replace(':', '-')}")

        (result,) = await run_in_browser(script)
        assert "wins" in result or "draw" in result, result
        assert "stalemate" in result, result  # SHORT_GAME's every line
    finally:
        process.send_signal(2)
        assert process.wait(timeout=30) == 130


@pytest.mark.browser
async def test_a_rematch_against_the_ai_starts_a_second_game_with_the_seats_swapped() -> None:
    """Play a game, click [data-action=rematch]: the page goes to the new seat (Yellow, the AI
    now Red) and a second game is played there."""
    process = subprocess.Popen(
        [program("hub"), "play", "connect4", "web", "ai:1", "--web", "0", "--seed", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        while "plays in the browser at" not in (line := process.stderr.readline()):
            assert line, "no seat URL"
        url = line.rsplit(" at ", 1)[1].strip()

        def script(page: Any) -> tuple[str, str, str]:
            first = play_through(page, url, shots="connect4-before-rematch")
            page.locator("[data-action=rematch]").click()
            page.wait_for_url(lambda address: address != url)
            expect(page).to_have_title(re.compile("you play Yellow"))
            second = drive([page], shots="connect4-rematch")[0]
            expect(page.locator("[data-action=rematch]")).to_be_visible()  # and again
            return first, second, str(page.url)

        first, second, second_url = await run_in_browser(script)
        assert second_url != url
        for result in (first, second):
            assert "wins" in result or "draw" in result, result
        while "Yellow plays in the browser at" not in (line := process.stderr.readline()):
            assert line, "no seat URL for the rematch"
    finally:
        process.send_signal(2)
        assert process.wait(timeout=30) == 130


@pytest.mark.browser
async def test_two_friends_rematch_once_both_accept() -> None:
    """A game with a friend from the lobby; one asks for a rematch, the other page says so
    and accepts: both pages go to the new game, colours swapped."""
    process, _, url = await start_server()
    try:

        def script(page: Any) -> list[str]:
            page.goto(url)
            page.locator('button[data-opponent="person"]').click()
            page.wait_for_url("**/play/*")
            friend = page.context.new_page()
            friend.goto(page.locator(".share a").inner_text())
            drive([page, friend], shots="connect4-friends")
            before = [page.url, friend.url]
            page.locator("[data-action=rematch]").click()
            expect(friend.locator(".rematch .offer")).to_have_text("Red offers a rematch.")
            expect(friend.locator("[data-action=rematch]")).to_have_text("Accept the rematch")
            friend.screenshot(path=artifacts() / "connect4-rematch-offered.png", full_page=True)
            friend.locator("[data-action=rematch]").click()
            for each, old in zip([page, friend], before, strict=True):
                each.wait_for_url(lambda address, old=old: address != old)
            expect(page).to_have_title(re.compile("you play Yellow"))
            expect(friend).to_have_title(re.compile("you play Red"))
            return drive([page, friend], shots="connect4-friends-rematch")

        first, second = await run_in_browser(script)
        assert first == second and ("wins" in first or "draw" in first)
    finally:
        stop(process)


ITALIAN = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"


@pytest.mark.browser
async def test_a_chess_page_shows_where_the_game_started_and_the_captured_pieces() -> None:
    """``hub play chess --fen``: the page shows "Started from" with the FEN and a small
    board; after Nxe5 White's captures hold a black pawn."""
    process = subprocess.Popen(
        [
            *(program("hub"), "play", "chess", "web", "ai:1", "--fen", ITALIAN),
            *("--web", "0", "--no-record"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        while "plays in the browser at" not in (line := process.stderr.readline()):
            assert line, "no seat URL"
        url = line.rsplit(" at ", 1)[1].strip()

        def script(page: Any) -> str:
            page.goto(url)
            expect(page.locator(".start-position figcaption")).to_contain_text(ITALIAN)
            expect(page.locator(".start-position figcaption")).to_contain_text("Started from")
            page.locator('[data-part="f3"].part').click()
            page.locator('[data-part="e5"].part').click()
            expect(page.locator(".captured-by-white .pieces")).to_contain_text("\u265f")
            expect(page.locator("#moves li").nth(1)).not_to_be_empty()  # Black answered
            page.screenshot(path=artifacts() / "chess-started-from-captures.png", full_page=True)
            page.locator("#resign").click()
            page.locator("#resign-yes").click()  # resigning asks first
            expect(page.locator("#result")).not_to_be_empty()
            return str(page.locator("#result").inner_text())

        result = await run_in_browser(script)
        assert "Black (ai:1) wins" in result and "resign" in result, result
    finally:
        process.send_signal(2)
        assert process.wait(timeout=30) == 130
