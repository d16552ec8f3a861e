"""Who may resume which adjourned game, and the game rebuilt from its record
(hub.declared.adjourned): pure, on records made here; `Resumptions` gathers the seats."""

from __future__ import annotations

import random
from typing import Any

import pytest
import trio

from hub.core.model.clock import SeatClock
from hub.core.model.events import GameRecord, RecordedMove
from hub.core.model.referee import Termination
from hub.core.model.values import PlayerInfo
from hub.declared.adjourned import (
    ADJOURNED,
    ADJOURNED_AT,
    Elsewhere,
    NotResumable,
    Resumptions,
    claim,
    problem,
    rebuild,
    registered,
)
from hub.games.clubs.game import ClubsGame
from hub.games.connect4 import ConnectFour
from hub.records.resuming import HoldFailed

ALICE = PlayerInfo("alice", "remote", "tcp", "bot:alice")
BOB = PlayerInfo("bob", "person", "web", "person:bob")
AI = PlayerInfo("ai:1", "ai", "ai:1", "connect4/ai:1")
GUEST_BOT = PlayerInfo("stranger", "remote", "tcp", "remote:stranger")
GUEST_PERSON = PlayerInfo("browser", "person", "web", "person:browser")


def adjourned(
    players: tuple[PlayerInfo, ...] = (ALICE, AI),
    moves: tuple[str, ...] = ("4", "4", "3"),
    *,
    detail: str = ADJOURNED,
    tcs: tuple[str, ...] = ("60+1", "60+1"),
    **settings: Any,
) -> GameRecord:
    """A game of Connect Four adjourned after ``moves`` (seat 0 first), each taking 2 s."""
    game = ConnectFour({})
    state = game.start(random.Random(0))
    first = game.view(state, None)
    recorded = []
    for ply, text in enumerate(moves):
        state = game.apply(state, game.parse_move(state, text))
        recorded.append(RecordedMove(ply % 2, text, 2.0, game.view(state, None)))
    return GameRecord(
        game_id="ab" * 16,
        game="connect4",
        settings=settings,
        players=players,
        time_controls=tcs,
        initial_state=first,
        moves=recorded,
        final_state=recorded[-1].state if recorded else first,
        scores=(0, 0),
        winners=(),
        termination=Termination.ABORTED,
        fault=None,
        started_at=1000.0,
        ended_at=1010.0,
        thinking=(4.0, 2.0),
        detail=detail,
    )


def test_registered_names_are_bots_and_people_with_a_name_of_their_own() -> None:
    assert registered(ALICE) and registered(BOB)
    assert not registered(AI) and not registered(GUEST_BOT) and not registered(GUEST_PERSON)
    assert not registered(PlayerInfo("friend", "person", "web", "person:friend"))


def test_only_a_seats_own_identity_may_resume_it() -> None:
    record = adjourned((ALICE, BOB))
    assert claim(record, ConnectFour, ALICE) == [0]
    assert claim(record, ConnectFour, BOB) == [1]
    assert claim(record, ConnectFour, PlayerInfo("Alice", "remote", "tcp", "bot:Alice")) == [0]
    with pytest.raises(NotResumable, match="carol has no seat"):
        claim(record, ConnectFour, PlayerInfo("carol", "remote", "tcp", "bot:carol"))
    with pytest.raises(NotResumable, match="registered name"):
        claim(record, ConnectFour, PlayerInfo("alice", "remote", "tcp", "remote:alice"))
    # a person named bob is not the bot bob: the identity decides, not the name
    with pytest.raises(NotResumable, match="has no seat"):
        claim(record, ConnectFour, PlayerInfo("bob", "remote", "tcp", "bot:bob"))
    both = adjourned((ALICE, ALICE))
    assert claim(both, ConnectFour, ALICE) == [0, 1]


def test_games_with_a_guest_or_hidden_cards_or_not_adjourned_cannot_be_resumed() -> None:
    assert problem(adjourned(), ConnectFour) is None
    assert "guest" in (problem(adjourned((ALICE, GUEST_BOT)), ConnectFour) or "")
    assert "guest" in (problem(adjourned((GUEST_PERSON, AI)), ConnectFour) or "")
    assert "not adjourned" in (problem(adjourned(detail="undo"), ConnectFour) or "")
    assert "hidden" in (
        problem(adjourned(), type("Clubs", (ClubsGame,), {"name": "connect4"})) or ""
    )
    assert "of connect4, not clubs" in (problem(adjourned(), ClubsGame) or "")
    with pytest.raises(NotResumable, match="guest"):
        claim(adjourned((ALICE, GUEST_BOT)), ConnectFour, ALICE)


def test_the_game_is_rebuilt_from_its_moves_with_its_clocks_and_built_players() -> None:
    resumed = rebuild(ConnectFour, adjourned())
    game = ConnectFour({})
    state = game.start(random.Random(0))
    for text in ("4", "4", "3"):
        state = game.apply(state, game.parse_move(state, text))
    assert game.view(resumed.history.state, None) == game.view(state, None)
    assert [seat for seat, _ in resumed.history.moves] == [0, 1, 0]
    assert resumed.history.started_at == 1000.0
    # 60 s each, 2 s a move, +1 a move: seat 0 moved twice, seat 1 once
    assert resumed.remaining == (58.0, 59.0)
    assert set(resumed.built) == {1} and resumed.built[1].kind == "ai"
    assert resumed.wanted == frozenset({0})
    assert resumed.adjourned_at() == [3]
    clocks = [SeatClock(control) for control in resumed.controls]
    resumed.set_clocks(clocks)
    assert [clock.remaining for clock in clocks] == [58.0, 59.0]


def test_untimed_games_and_games_adjourned_twice() -> None:
    resumed = rebuild(ConnectFour, adjourned(tcs=("none", "none"), **{ADJOURNED_AT: [1]}))
    assert resumed.remaining == (None, None)
    assert resumed.adjourned_at() == [1, 3]


def test_moves_that_do_not_replay_are_refused() -> None:
    record = adjourned()
    broken = GameRecord(**{**_fields(record), "moves": (RecordedMove(0, "9", 1.0),)})
    with pytest.raises(NotResumable, match="do not replay"):
        rebuild(ConnectFour, broken)


def _fields(record: GameRecord) -> dict[str, Any]:
    import attrs

    return attrs.asdict(record, recurse=False)


async def test_the_seats_gather_and_each_is_claimed_once() -> None:
    records = {"ab" * 16: adjourned((ALICE, BOB))}
    looked: list[str] = []

    async def lookup(game_id: str) -> GameRecord | None:
        looked.append(game_id)
        await trio.lowlevel.checkpoint()
        return records.get(game_id)

    resumptions = Resumptions(lookup)
    with pytest.raises(NotResumable, match="no adjourned game"):
        await resumptions.join(ConnectFour, "cd" * 16, ALICE)
    gathering, seat = await resumptions.join(ConnectFour, "ab" * 16, ALICE)
    assert seat == 0 and not gathering.complete
    gathering.seats[0] = object()  # type: ignore[assignment]
    with pytest.raises(NotResumable, match="taken already"):
        await resumptions.join(ConnectFour, "ab" * 16, ALICE)
    same, seat = await resumptions.join(ConnectFour, "ab" * 16, BOB)
    assert same is gathering and seat == 1
    gathering.seats[1] = object()  # type: ignore[assignment]
    assert gathering.complete
    resumptions.finished("ab" * 16, gathering, kept=True)
    assert gathering.done.is_set() and not resumptions.gatherings
    with pytest.raises(NotResumable, match="played on already"):
        await resumptions.join(ConnectFour, "ab" * 16, ALICE)


async def test_a_player_who_leaves_frees_its_seat_and_closing_calls_the_rest_off() -> None:
    async def lookup(game_id: str) -> GameRecord | None:
        return adjourned((ALICE, BOB))

    resumptions = Resumptions(lookup)
    gathering, seat = await resumptions.join(ConnectFour, "ab" * 16, ALICE)
    gathering.seats[seat] = object()  # type: ignore[assignment]
    resumptions.leave("ab" * 16, gathering, seat)
    assert not resumptions.gatherings
    gathering, seat = await resumptions.join(ConnectFour, "ab" * 16, ALICE)
    gathering.seats[seat] = object()  # type: ignore[assignment]
    resumptions.call_off("closing")
    assert gathering.called_off == "closing" and gathering.started.is_set()
    assert not resumptions.gatherings


async def test_a_game_that_ends_before_it_started_tells_its_waiting_players() -> None:
    async def lookup(game_id: str) -> GameRecord | None:
        return adjourned((ALICE, BOB))

    resumptions = Resumptions(lookup)
    gathering, seat = await resumptions.join(ConnectFour, "ab" * 16, ALICE)
    gathering.seats[seat] = object()  # type: ignore[assignment]
    resumptions.finished("ab" * 16, gathering)  # (its built players could not be made)
    assert gathering.called_off and gathering.done.is_set()
    gathering, seat = await resumptions.join(ConnectFour, "ab" * 16, ALICE)  # not kept: again
    assert seat == 0


def test_a_record_whose_clocks_or_end_do_not_fit_is_refused() -> None:
    with pytest.raises(NotResumable, match="time control"):
        rebuild(ConnectFour, adjourned(tcs=("soon", "soon")))
    with pytest.raises(NotResumable, match="1 time controls for 2 seats"):
        rebuild(ConnectFour, adjourned(tcs=("none",)))
    won = ("4", "3", "4", "3", "4", "3", "4")  # four in a column: the game is over
    with pytest.raises(NotResumable, match="nothing to play on"):
        rebuild(ConnectFour, adjourned(moves=won))


class FakeHolds:
    """The processes' holds of one database (hub.records.resuming), in memory: ``held`` by
    game id, the holder's address; this process is ``HERE``."""

    HERE = "127.0.0.1:1"

    def __init__(self) -> None:
        self.held: dict[str, str] = {}
        self.failing = False

    async def hold(self, game_id: str) -> str | None:
        await trio.lowlevel.checkpoint()
        if self.failing:
            raise HoldFailed("down")
        holder = self.held.setdefault(game_id, self.HERE)
        return None if holder == self.HERE else holder

    def release(self, game_id: str) -> None:
        if self.held.get(game_id) == self.HERE:
            del self.held[game_id]


async def test_the_first_player_back_holds_the_game_for_its_process_until_it_goes() -> None:
    async def lookup(game_id: str) -> GameRecord | None:
        import attrs

        return attrs.evolve(adjourned((ALICE, BOB)), game_id=game_id)

    holds = FakeHolds()
    resumptions = Resumptions(lookup, holds=holds)
    game_id = "ab" * 16
    gathering, seat = await resumptions.join(ConnectFour, game_id, ALICE)
    assert holds.held == {game_id: holds.HERE}
    gathering.seats[seat] = object()  # type: ignore[assignment]
    same, seat = await resumptions.join(ConnectFour, game_id, BOB)  # (held here: no look)
    assert same is gathering and seat == 1
    gathering.seats[seat] = object()  # type: ignore[assignment]
    resumptions.leave(game_id, gathering, 0)
    assert holds.held == {game_id: holds.HERE}  # (bob still waits)
    resumptions.leave(game_id, gathering, 1)
    assert not resumptions.gatherings and holds.held == {}  # everyone left: let go

    # another process holds it: a player here is sent there, and nothing gathers here
    holds.held[game_id] = "10.0.0.2:7000"
    with pytest.raises(Elsewhere, match=r"another process of this hub.*10\.0\.0\.2:7000") as got:
        await resumptions.join(ConnectFour, game_id, ALICE)
    assert got.value.address == "10.0.0.2:7000" and not resumptions.gatherings
    assert holds.held == {game_id: "10.0.0.2:7000"}

    # held here and played on: kept (its record is on its way), never resumed here again
    del holds.held[game_id]
    gathering, seat = await resumptions.join(ConnectFour, game_id, ALICE)
    gathering.seats[seat] = object()  # type: ignore[assignment]
    gathering.started.set()
    resumptions.finished(game_id, gathering, kept=True)
    assert holds.held == {game_id: holds.HERE}

    # played on but not kept (aborted another way), or called off: let go
    other = "cd" * 16
    gathering, seat = await resumptions.join(ConnectFour, other, ALICE)
    gathering.seats[seat] = object()  # type: ignore[assignment]
    gathering.started.set()
    resumptions.finished(other, gathering)
    assert other not in holds.held
    gathering, seat = await resumptions.join(ConnectFour, other, ALICE)
    resumptions.call_off("closing")
    assert other not in holds.held

    # a database that cannot tell: refused, nothing held
    holds.failing = True
    with pytest.raises(NotResumable, match="cannot tell now") as refused:
        await resumptions.join(ConnectFour, other, ALICE)
    assert not isinstance(refused.value, Elsewhere) and not resumptions.gatherings
