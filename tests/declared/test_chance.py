"""Chance and simultaneous moves (hub.core.play.chance), shown on three games declared in the
tests: Pig (dice rolled during play), Rock-Paper-Scissors (both choose at once) and High
Cards (hidden hands and a draw pile).

Every seat kind is watched while it plays: spy bots (JSON bot programs that log every line)
over memory streams, over pipes and over TCP, a browser seat (every snapshot its page would
be sent), the built-in players, a person at the terminal, and a spectator's event stream.
None learns a roll before it is rolled, the other's choice before its own is in, or a card in
another's hand; a finished game's record replays exactly through the declaration."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio
import trio.testing

from hub.core.io.lines import LineError, LineStream
from hub.core.model.bus import EventBus
from hub.core.model.events import Event, GameRecord, to_json
from hub.core.model.values import PlayerInfo
from hub.core.play.chance import CHANCE
from hub.core.play.game import Game, replay_moves
from hub.core.play.match import Match
from hub.core.play.vocabulary import MatchResult, Seat
from hub.declared.browser import BrowserSeat, SeatDesk
from hub.declared.seats import RandomSeat, SeatMaker, ai_seat, bot_seat, parse_seat
from hub.records.render import move_line
from hub.testing import GameConformanceError, check_game
from hub.web.server import WebServer, serve_web
from tests.conftest import program
from tests.declared.game_cards import HighCards
from tests.declared.game_pig import Die, Pig
from tests.declared.game_rps import RockPaperScissors

ROOT = Path(__file__).resolve().parents[2]
SPY = str(Path(__file__).with_name("spy_bot.py"))
GAMES: dict[str, Callable[[], Game[Any, Any]]] = {
    "pig": lambda: Pig({"target": 20}),
    "rps": RockPaperScissors,
    "highcards": HighCards,
}
Seen = list[tuple[str, str]]
"""What each watcher was told, in order: (who, what): ``seat0``/``seat1`` a line received
(``> ...``) or sent (``< ...``), ``browser`` a snapshot or ``< MOVE``, ``spectator`` an event."""


# -- the watchers -------------------------------------------------------------------------------


async def spy(who: str, lines: LineStream, rng: random.Random, seen: Seen) -> None:
    """A JSON bot over ``lines`` that notes every line and plays at random."""
    while True:
        try:
            line = await lines.receive_line(1 << 20)
        except LineError:
            return
        message = json.loads(line)
        shown = {k: v for k, v in message.items() if k != "game_id"}  # os.urandom, not chance
        seen.append((who, f"> {json.dumps(shown, separators=(',', ':'))}"))
        reply: dict[str, str] | None = None
        if message["type"] == "welcome":
            reply = {"type": "hello", "name": who}
        elif message["type"] == "turn":
            reply = {"move": rng.choice(message["legal"])}
        if reply is not None:
            seen.append((who, f"< {json.dumps(reply)}"))
            await lines.send_line(json.dumps(reply))
        if message["type"] == "end":
            return


class WatchedBrowser(BrowserSeat):
    """A browser seat that notes every snapshot its page's event stream would send."""

    seen: Seen

    def _bump(self) -> None:
        super()._bump()
        snapshot = self.snapshot()
        snapshot.pop("game_id")  # a new one every game (os.urandom): not chance's to hide
        self.seen.append(("browser", json.dumps(snapshot)))


async def drive(seat: WatchedBrowser, rng: random.Random) -> None:
    """The person at the page: a random legal move whenever it is their turn."""
    version = -1
    while True:
        await seat.wait_changed(version)
        snap = seat.snapshot()
        version = snap["version"]
        if snap["over"]:
            return
        if snap["your_turn"] and seat.submit(move := rng.choice(snap["legal"])) is None:
            seat.seen.append(("browser", f"< {move}"))


def spectate(bus: EventBus, seen: Seen) -> None:
    """A spectator's event stream (the game's end, whose record shows all, left out)."""

    def note(event: Event) -> None:
        data = to_json(event)
        if data["event"] == "ended":
            return
        for volatile in ("at", "elapsed", "clocks", "game_id"):
            data.pop(volatile, None)
        seen.append(("spectator", json.dumps(data)))

    bus.listen(note)


class Dice(random.Random):
    """Chance's generator for a test: it notes its draws (``drawn``), and gives the draws
    ``replay`` first (then its own): two games whose chance agrees up to a point."""

    def __init__(self, seed: int, replay: Sequence[float] = ()) -> None:
        super().__init__(seed)
        self.replay = list(replay)
        self.drawn: list[float] = []

    def random(self) -> float:
        value = self.replay.pop(0) if self.replay else super().random()
        self.drawn.append(value)
        return value


async def play(
    name: str, chance: int | Dice, *, browser: bool, seeds: tuple[int, int] = (1, 2)
) -> tuple[Seen, MatchResult[Any, Any]]:
    """One game: a spy bot over a memory stream in seat 0; in seat 1 another, or a browser."""
    game, seen, bus = GAMES[name](), [], EventBus()
    spectate(bus, seen)
    async with trio.open_nursery() as nursery:
        seats: list[Seat[Any, Any]] = []
        for number in range(2 - browser):
            hub_end, bot_end = trio.testing.memory_stream_pair()
            bot = LineStream(bot_end, bot_end)
            nursery.start_soon(spy, f"seat{number}", bot, random.Random(seeds[number]), seen)
            seats.append(await bot_seat(game, LineStream(hub_end, hub_end), "spy", "tcp", "tcp"))
        if browser:
            page = WatchedBrowser(game, "token", PlayerInfo("person"))
            page.seen = seen
            nursery.start_soon(drive, page, random.Random(seeds[1]))
            seats.append(page)
        match = Match(game, game.start(random.Random(0)), seats, events=bus)
        match.chance_rng = chance if isinstance(chance, Dice) else random.Random(chance)
        result = await match.run()
    return seen, result


def by(seen: Seen, who: str) -> list[str]:
    return [what for whom, what in seen if whom == who]


def moves(record: GameRecord) -> list[tuple[int, str]]:
    return [(move.seat, move.move) for move in record.moves]


def chance_told(who: str, seen: Sequence[str]) -> int:
    """How many of chance's outcomes ``who`` has been told of by the observations ``seen``
    (a line or an event tells one at most; a browser's snapshot lists all so far)."""
    if who == "browser":
        snapshots = [json.loads(what) for what in seen if what.startswith("{")]
        return max((sum(e.startswith("Chance") for e in s["moves"]) for s in snapshots), default=0)
    if who == "spectator":
        return sum(json.loads(what).get("seat") == CHANCE for what in seen)
    return sum(what.startswith('> {"type":"chance"') for what in seen)


def learns(seen: Seen, who: str, ply: int) -> int:
    """Where in ``seen`` the watcher ``who`` is first told of the move numbered ``ply``."""
    moved = 0
    for index, (whom, what) in enumerate(seen):
        if whom != who:
            continue
        if who == "browser" and what.startswith("{"):
            moved = len(json.loads(what)["moves"])
        elif who == "spectator":
            moved = max(moved, json.loads(what).get("ply", 0))
        elif who.startswith("seat") and what.startswith('> {"type":"moved"'):
            moved += 1
        if moved >= ply:
            return index
    raise AssertionError(f"{who} was never told of move {ply}")


# -- chance: never told before it happens, hands seen only by their owners -----------------------


@pytest.mark.parametrize("browser", [False, True], ids=["bots", "browser"])
@pytest.mark.parametrize("name", ["pig", "highcards"])
async def test_nobody_learns_chance_before_it_acts(name: str, browser: bool) -> None:
    """The same game twice, the players' choices seeded alike, chance the same for its
    first half and then not: up to chance's first differing outcome, every watcher is told
    exactly the same things (nothing it saw held the generator's future)."""
    dice = Dice(1)
    first_seen, first = await play(name, dice, browser=browser)
    agreed = len(dice.drawn) // 2
    second_seen, second = await play(name, Dice(2, dice.drawn[:agreed]), browser=browser)
    outcomes = [[m for m in moves(r.record) if m[0] == CHANCE] for r in (first, second)]
    assert outcomes[0] and outcomes[1]  # chance acted during play
    differ = next(k for k, pair in enumerate(zip(*outcomes, strict=False)) if len(set(pair)) > 1)
    assert differ >= agreed > 2
    for who in ("seat0", "seat1", "browser", "spectator"):
        mine, theirs = by(first_seen, who), by(second_seen, who)
        if not mine:
            continue
        assert mine != theirs, who
        pairs = zip(mine, theirs, strict=False)
        split = next((i for i, (a, b) in enumerate(pairs) if a != b), min(len(mine), len(theirs)))
        assert chance_told(who, mine[: split + 1]) > differ, (who, split, mine[split : split + 1])


@pytest.mark.parametrize("browser", [False, True], ids=["bots", "browser"])
async def test_a_card_drawn_is_told_only_to_its_hand(browser: bool) -> None:
    seen, result = await play("highcards", 3, browser=browser)
    game = HighCards()
    states = replay_moves(game, game.start(random.Random(0)), moves(result.record))
    drawn = [  # (whose hand, the card's text) for every card chance dealt or drew
        (states[ply].owed[0], text)
        for ply, (seat, text) in enumerate(moves(result.record))
        if seat == CHANCE
    ]
    assert all(text.startswith("card ") for _, text in drawn)  # the record shows all

    def expected(me: int | None) -> list[str]:
        return [text if hand == me else "a card" for hand, text in drawn]

    told = [json.loads(line[2:])["move"] for line in by(seen, "seat0") if "chance" in line[:20]]
    assert told == expected(0)
    events = [json.loads(what) for what in by(seen, "spectator")]
    assert (events[0]["event"], events[0]["to_move"]) == ("started", CHANCE)  # the deal first
    assert [e["move"] for e in events if e.get("seat") == CHANCE] == expected(None)
    assert all(
        isinstance(hand, int) for e in events if e.get("state") for hand in e["state"]["hands"]
    )
    turns = [json.loads(line[2:]) for line in by(seen, "seat0") if '"type":"turn"' in line]
    assert turns and all(isinstance(t["view"]["hands"][1], int) for t in turns)
    if browser:
        last = json.loads(next(s for s in reversed(by(seen, "browser")) if s.startswith("{")))
        listed = [
            entry.removeprefix("Chance ") for entry in last["moves"] if entry.startswith("Chance")
        ]
        assert listed == expected(1)
    else:
        told = [json.loads(line[2:])["move"] for line in by(seen, "seat1") if "chance" in line[:20]]
        assert told == expected(1)


async def test_a_roll_is_told_to_everyone_once_rolled() -> None:
    seen, result = await play("pig", 4, browser=False)
    rolls = [text for seat, text in moves(result.record) if seat == CHANCE]
    for who in ("seat0", "seat1"):
        told = [json.loads(line[2:])["move"] for line in by(seen, who) if "chance" in line[:20]]
        assert told == rolls
    events = [json.loads(what) for what in by(seen, "spectator")]
    rolled = [e for e in events if e.get("seat") == CHANCE]
    assert [e["move"] for e in rolled] == rolls
    assert {e["to_move"] for e in events if e.get("move") == "roll"} == {CHANCE}  # chance next


# -- simultaneous moves: nobody learns the other's choice before its own is in -------------------


@pytest.mark.parametrize("browser", [False, True], ids=["bots", "browser"])
async def test_nobody_learns_the_other_choice_before_its_own_is_in(browser: bool) -> None:
    seen, result = await play("rps", 0, browser=browser, seeds=(5, 6))
    record = moves(result.record)
    assert len(record) == 6 and [seat for seat, _ in record] == [0, 1] * 3
    second = "browser" if browser else "seat1"
    replies = {
        who: [
            i
            for i, (whom, what) in enumerate(seen)
            if whom == who and what.startswith("<") and "hello" not in what
        ]
        for who in ("seat0", second)
    }
    assert all(len(found) == 3 for found in replies.values()), replies
    for round_ in range(3):
        both_in = max(found[round_] for found in replies.values())
        for who in ("seat0", second, "spectator"):  # told the round only once both are in
            for ply in (2 * round_ + 1, 2 * round_ + 2):
                assert learns(seen, who, ply) > both_in, (who, ply)
    for who in ("seat0", second):  # each turn's view holds no pending choice of the other
        for whom, what in seen:
            if whom == who and '"type":"turn"' in what:
                assert json.loads(what[2:])["view"]["mine"] is None


async def test_the_built_in_ai_is_not_shown_the_other_choice() -> None:
    """The game's AI beats whatever choice its state shows pending; asked with its own
    turn's state, it sees none and plays rock every round (it would win every round as the
    second mover of turns taken one after the other)."""
    game = RockPaperScissors({"rounds": 30})
    seats = [
        RandomSeat(game, random.Random(7), PlayerInfo("random")),
        ai_seat(game, 1, 1, threaded=False),
    ]
    result = await Match(game, game.start(random.Random(0)), seats).run()
    ai_moves = [text for seat, text in result.moves if seat == 1]
    assert ai_moves == ["rock"] * 30
    assert result.outcome.scores[0] > 0  # the random seat won some rounds


async def test_a_simultaneous_turn_runs_each_seat_on_its_own_clock(
    autojump_clock: trio.testing.MockClock,
) -> None:
    from hub.core.model.clock import TimeControl
    from hub.core.model.referee import Termination

    game = RockPaperScissors()
    quick = RandomSeat(game, random.Random(1), PlayerInfo("random"))
    silent = WatchedBrowser(game, "t", PlayerInfo("person"))
    silent.seen = []
    match = Match(
        game,
        game.start(random.Random(0)),
        [quick, silent],
        time_control=TimeControl(per_move=5),
    )
    result = await match.run()
    assert result.fault is not None and result.fault.seat == 1
    assert result.fault.termination is Termination.TIMEOUT
    assert trio.current_time() == pytest.approx(5)
    assert result.moves == []  # seat 0's choice was never applied nor told
    assert not any(
        "moves" in what and json.loads(what)["moves"]
        for _, what in silent.seen
        if what.startswith("{")
    )


# -- the records replay exactly ----------------------------------------------------------------


@pytest.mark.parametrize("name", list(GAMES))
async def test_the_record_replays_exactly(name: str) -> None:
    game = GAMES[name]()
    seats = [RandomSeat(game, random.Random(seat), PlayerInfo("random")) for seat in (3, 4)]
    result = await Match(game, game.start(random.Random(0)), seats).run()
    record = result.record
    assert record.winners and record.fault is None
    states = replay_moves(game, game.start(random.Random(0)), moves(record))
    assert states[-1] == result.state
    assert game.outcome(states[-1]) == result.outcome
    shown = game.hidden.record_view if game.hidden is not None else game.view
    assert [shown(state) for state in states[1:]] == [m.state for m in record.moves]
    if name != "rps":  # chance's outcomes, in the record as `hub games show` lists them
        ply, move = next((p, m) for p, m in enumerate(record.moves, 1) if m.seat == CHANCE)
        assert move_line(record, ply, move) == f"{ply}. chance: {move.move} (0.000 s)"


# -- real programs over pipes and over TCP ------------------------------------------------------


def logged(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line[2:]) for line in path.read_text().splitlines() if line.startswith(">")]


@pytest.mark.parametrize("name", list(GAMES))
async def test_spy_programs_over_pipes_and_tcp(name: str, tmp_path: Path) -> None:
    game = GAMES[name]()
    pipe_log, tcp_log = tmp_path / "pipe.log", tmp_path / "tcp.log"
    with trio.fail_after(60):
        listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
        port = listener.socket.getsockname()[1]
        maker = SeatMaker(game)
        async with trio.open_nursery() as nursery:
            argv = [sys.executable, SPY, str(tcp_log), "2", f"127.0.0.1:{port}"]
            nursery.start_soon(lambda: trio.run_process(argv))
            piped = await maker.program(parse_seat(f"{SPY} {pipe_log} 1", type(game)))
            stream = await listener.accept()
            remote = await bot_seat(game, LineStream(stream, stream), "client", "remote", "tcp")
            try:
                result = await Match(game, game.start(random.Random(0)), [piped, remote]).run()
            finally:
                await stream.aclose()
                await listener.aclose()
                await maker.stop_children()
    record = result.record
    assert record.fault is None, record.fault
    states = replay_moves(game, game.start(random.Random(0)), moves(record))
    for me, log in enumerate((pipe_log, tcp_log)):
        heard = logged(log)
        assert heard[-1]["type"] == "end"
        told = [m["move"] for m in heard if m["type"] == "chance"]
        chance = [
            (states[ply], text) for ply, (seat, text) in enumerate(moves(record)) if seat == CHANCE
        ]
        if name == "highcards":
            assert told == [text if state.owed[0] == me else "a card" for state, text in chance]
        else:
            assert told == [text for _, text in chance]
        if name == "rps":  # at each round's turn: told both moves of each earlier round only
            kinds = [m["type"] for m in heard]
            turns = [i for i, kind in enumerate(kinds) if kind == "turn"]
            assert [kinds[:i].count("moved") for i in turns] == [0, 2, 4]


# -- a person at the terminal --------------------------------------------------------------------


def hub_play(tmp_path: Path, *args: str, stdin: str) -> str:
    """``hub play rps ARGS`` with Rock-Paper-Scissors installed as a plug-in; its stdout."""
    site = tmp_path / "site"
    info = site / "chancegames-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: chancegames\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[hub.games]\nrps = tests.declared.game_rps:RockPaperScissors\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    done = subprocess.run(
        [program("hub"), "play", "rps", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_person_at_the_terminal_is_told_the_other_choice_after_their_own(tmp_path: Path) -> None:
    out = hub_play(tmp_path, "random", "human", "--seed", "3", stdin="rock\npaper\nscissors\n")
    plays = [index for index in range(len(out)) if out.startswith(" plays ", index)]
    prompts = [index for index in range(len(out)) if out.startswith("Seat 2 to move:", index)]
    assert (len(plays), len(prompts)) == (6, 3), out
    for round_, prompt in enumerate(prompts):  # the random seat's choice, after the prompt
        assert prompt < plays[2 * round_] < plays[2 * round_ + 1]
        assert round_ == 2 or plays[2 * round_ + 1] < prompts[round_ + 1]
    assert "Seat 1 (random) plays" in out and "Seat 2 (you) plays" in out


def test_two_people_at_one_keyboard_choose_one_after_the_other(tmp_path: Path) -> None:
    out = hub_play(tmp_path, "human", "human", stdin="rock\n" * 6)
    plays = [index for index in range(len(out)) if out.startswith(" plays rock", index)]
    prompts = [index for index in range(len(out)) if out.startswith(" to move:", index)]
    assert (len(plays), len(prompts)) == (6, 6), out
    for round_ in range(3):  # both asked, then both told
        assert max(prompts[2 * round_ : 2 * round_ + 2]) < plays[2 * round_]
    assert "a draw" in out


# -- over HTTP: the pages, the API and the event streams -------------------------------------------


async def test_no_page_or_stream_shows_a_card_of_another_hand(nursery: trio.Nursery) -> None:
    """High Cards between two browser seats, played over HTTP: after every move, each
    seat's page and event stream names only the cards dealt or drawn to that seat, and the
    spectators' pages, API and streams name none (``a card``), until the game is over."""
    game, desk, bus = HighCards(), SeatDesk(), EventBus()
    server: WebServer = await nursery.start(partial(serve_web, bus, desk=desk))
    seats = [desk.open(game), desk.open(game)]
    match = Match(game, game.start(random.Random(0)), seats, events=bus)
    match.chance_rng = random.Random(8)
    nursery.start_soon(match.run)
    rng, card = random.Random(2), re.compile(r"card \d")
    async with httpx.AsyncClient(timeout=10) as client:

        async def text(path: str) -> str:
            return (await client.get(server.url(path))).text

        async def first_frame(path: str) -> str:
            async with client.stream("GET", server.url(path)) as reply:
                async for line in reply.aiter_lines():
                    if line.startswith("data:"):
                        return line
            return ""

        checked = 0
        while True:
            await trio.testing.wait_all_tasks_blocked()
            if match.finished:
                break
            owner, state = {}, game.start(random.Random(0))
            for seat, move in match.moves:
                if seat == CHANCE:
                    owner[move] = state.owed[0]
                state = game.apply(state, move)
            every = f"/game/{match.game_id}"
            for path in ["/", "/api/games", every, f"/api/game/{match.game_id}"]:
                assert not card.search(await text(path)), path
            for path in ["/events", f"{every}/events"]:
                assert not card.search(await first_frame(path)), path
            for number, seat in enumerate(seats):
                named = card.findall(await text(f"/play/{seat.token}"))
                named += card.findall(await first_frame(f"/play/{seat.token}/events"))
                assert {owner[name] for name in named} <= {number}, (number, named)
                checked += len(named)
            mover = next(seat for seat in seats if seat.snapshot()["your_turn"])
            move = rng.choice(mover.snapshot()["legal"])
            reply = await client.post(
                server.url(f"/play/{mover.token}/move"),
                content=json.dumps({"move": move}),
                headers={"content-type": "application/json"},
            )
            assert reply.status_code == 200
    assert checked  # the pages did name their own cards
    assert match.result is not None and match.result.fault is None


async def test_no_page_or_stream_shows_a_choice_before_both_are_in(nursery: trio.Nursery) -> None:
    """Rock-Paper-Scissors between two browser seats over HTTP: once the first has chosen,
    the second's page and event stream and every spectator's page, API and stream still
    show no move, and the first's choice is shown nowhere; once both are in, both moves."""
    game, desk, bus = RockPaperScissors({"rounds": 1}), SeatDesk(), EventBus()
    server: WebServer = await nursery.start(partial(serve_web, bus, desk=desk))
    first, second = desk.open(game), desk.open(game)
    match = Match(game, game.start(random.Random(0)), [first, second], events=bus)
    nursery.start_soon(match.run)
    async with httpx.AsyncClient(timeout=10) as client:

        async def frame(path: str) -> dict[str, Any]:
            async with client.stream("GET", server.url(path)) as reply:
                async for line in reply.aiter_lines():
                    if line.startswith("data:"):
                        return dict(json.loads(line.removeprefix("data:")))
            raise AssertionError(f"no frame from {path}")

        async def post(seat: BrowserSeat, move: str) -> None:
            reply = await client.post(
                server.url(f"/play/{seat.token}/move"),
                content=json.dumps({"move": move}),
                headers={"content-type": "application/json"},
            )
            assert reply.status_code == 200

        await trio.testing.wait_all_tasks_blocked()
        assert first.snapshot()["your_turn"] and second.snapshot()["your_turn"]  # both at once
        await post(first, "scissors")
        await trio.testing.wait_all_tasks_blocked()
        assert match.moves == []
        page = await frame(f"/play/{second.token}/events")
        assert page["your_turn"] and page["moves"] == [] and "scissors" not in page["html"]
        api = (await client.get(server.url(f"/api/game/{match.game_id}"))).json()
        assert "scissors" not in json.dumps(api), api
        for path in ["/", f"/game/{match.game_id}", f"/play/{second.token}"]:
            assert "scissors" not in (await client.get(server.url(path))).text, path
        await post(second, "rock")
        await trio.testing.wait_all_tasks_blocked()
        assert match.moves == [(0, "scissors"), (1, "rock")]
        page = await frame(f"/play/{second.token}/events")
        assert page["moves"] == ["Seat 1 scissors", "Seat 2 rock"] and page["over"]


@pytest.mark.parametrize("name", list(GAMES))
def test_the_conformance_suite_plays_chance_and_simultaneous_moves(name: str) -> None:
    outcomes = check_game(lambda rng: (game := GAMES[name](), game.start(rng)), playouts=10)
    assert len(outcomes) == 10


def test_the_conformance_suite_refuses_an_outcome_of_chance_the_rules_refuse() -> None:
    class LoadedDie(Die):
        def outcomes(self, state: Any) -> list[tuple[str, float]] | None:
            faces = super().outcomes(state)
            return None if faces is None else [*faces, ("7", 1 / 6)]

    class Loaded(Pig):
        chance = LoadedDie()

    with pytest.raises(GameConformanceError, match="chance's outcome '7' rejected"):
        check_game(lambda rng: (game := Loaded({"target": 20}), game.start(rng)), playouts=1)
