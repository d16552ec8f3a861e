"""A declared game without an AI of its own gets one: ``ai:N`` (and ``mcts:N``, for every
game) is the general game player (hub/core/play/mcts.py), through the installed ``hub play`` and
``hub match``, and through the seat parsers of ``hub serve`` (a hello's opponent, the lobby
page's choices) and ``hub match``; a game that hides something and offers no sampler is
refused in words, never played by peeking."""

from __future__ import annotations

import os
import subprocess
import textwrap
from pathlib import Path

import pytest

from hub.core.model.bus import EventBus
from hub.core.model.clock import TimeControl
from hub.core.play.game import Hidden as HiddenFacet
from hub.core.play.threads import StopFlag, TurnTime
from hub.declared.hellos import BUILT_IN
from hub.declared.kit import DeclaredKit
from hub.declared.play import default_seats
from hub.declared.seats import (
    SeatSpec,
    SeatSpecError,
    ai_levels,
    general_seat,
    is_general,
    parse_seat,
)
from hub.declared.serve import GameServer
from hub.games.clubs.game import ClubsGame
from hub.games.connect4 import ConnectFour
from tests.conftest import program
from tests.core.test_mcts import Heap, TakeThreeAgain

PILES = textwrap.dedent(
    '''
    """Two heaps: take any number from one; taking a whole heap moves again; last wins."""
    import attrs

    from hub.core.play.game import Game
    from hub.core.model.referee import IllegalMove, Outcome


    @attrs.frozen
    class Piles:
        heaps: tuple
        mover: int = 0
        last: int = 0


    class TwoPiles(Game[Piles, str]):
        name = "piles"
        summary = "two heaps, no AI of its own"

        def start(self, rng):
            return Piles((5, 7))

        def to_move(self, state):
            return None if not any(state.heaps) else state.mover

        def legal_moves(self, state):
            return [f"{h + 1}x{n}" for h in (0, 1) for n in range(1, state.heaps[h] + 1)]

        def apply(self, state, move):
            if move not in self.legal_moves(state):
                raise IllegalMove(move)
            h, n = (int(part) for part in move.split("x"))
            heaps = list(state.heaps)
            heaps[h - 1] -= n
            again = heaps[h - 1] == 0 and any(heaps)
            return Piles(tuple(heaps), state.mover if again else 1 - state.mover, state.mover)

        def outcome(self, state):
            if any(state.heaps):
                return None
            return Outcome([int(s == state.last) for s in (0, 1)], [state.last])

        def view(self, state, seat=None):
            return {"heaps": list(state.heaps), "to_move": self.to_move(state)}
    '''
)


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """The game installed as pip would: its module and a dist-info with the entry point."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "pilesgame.py").write_text(PILES)
    info = site / "pilesgame-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: pilesgame\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[hub.games]\npiles = pilesgame:TwoPiles\n")
    return site


def hub(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run(
        [program("hub"), *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": path},
        timeout=120,
        check=False,
    )


def test_hub_play_seats_the_general_player_as_ai(site: Path, records_database: Path) -> None:
    done = hub(site, "play", "piles", "ai:2", "random:5")
    assert done.returncode == 0, done.stderr
    assert "Seat 1 (ai:2) plays" in done.stdout
    assert done.stdout.rstrip().endswith("wins")


def test_hub_match_plays_the_general_player(site: Path, records_database: Path) -> None:
    done = hub(site, "match", "piles", "mcts:1", "random:1", "--games", "2", "--tc", "none")
    assert done.returncode == 0, done.stderr
    assert "2 games" in done.stdout or "2 games" in done.stderr


def test_ai_of_a_game_without_one_is_the_general_player() -> None:
    spec = parse_seat("ai:3", TakeThreeAgain)
    assert spec == SeatSpec("ai", "ai:3", level=3)
    assert is_general(spec, TakeThreeAgain)
    assert parse_seat("ai", TakeThreeAgain).level == 4
    assert ai_levels(TakeThreeAgain) == range(1, 11)
    assert default_seats(TakeThreeAgain) == ["human", "ai"]  # hub play GAME: against it
    with pytest.raises(SeatSpecError, match="levels of take-three-again are ai:1 to ai:10"):
        parse_seat("ai:11", TakeThreeAgain)


def test_mcts_is_offered_beside_a_games_own_ai() -> None:
    own, general = parse_seat("ai:3", ConnectFour), parse_seat("mcts:3", ConnectFour)
    assert not is_general(own, ConnectFour)
    assert is_general(general, ConnectFour)
    assert ai_levels(ConnectFour) == range(1, 9)
    with pytest.raises(SeatSpecError, match="mcts:1 to mcts:10"):
        parse_seat("mcts:0", ConnectFour)


def test_hub_match_and_hub_serve_read_the_specs() -> None:
    lobby = GameServer(TakeThreeAgain(), TimeControl(), EventBus())
    assert ("ai:10", "the computer, level 10") in lobby.choices()
    assert lobby._built("ai:2") == SeatSpec("ai", "ai:2", level=2)
    assert lobby._built("mcts:3") == SeatSpec("ai", "mcts:3", level=3)
    kit = DeclaredKit(TakeThreeAgain)
    assert kit.seat_spec("mcts:2") == SeatSpec("ai", "mcts:2", level=2)
    assert kit.seat_spec("ai:5") == SeatSpec("ai", "ai:5", level=5)
    assert DeclaredKit(ClubsGame).seat_spec("mcts:1").kind == "ai"  # not a clubs program
    assert BUILT_IN.fullmatch("mcts:3") and BUILT_IN.fullmatch("ai:3")


class Hidden(TakeThreeAgain):
    name = "hidden-heap"
    hidden = HiddenFacet(lambda state: {"stones": state.stones})


def test_a_hidden_game_without_a_sampler_is_refused_in_words() -> None:
    for text in ("ai:2", "mcts", "mcts:1"):
        with pytest.raises(SeatSpecError, match="cannot play it without peeking"):
            parse_seat(text, Hidden)
    assert ai_levels(Hidden) == range(0)
    assert ai_levels(ClubsGame) == range(1, 2)  # clubs' own; mcts:N through its sampler
    assert parse_seat("mcts:2", ClubsGame).level == 2


def test_the_seat_answers_a_legal_move_with_no_time_left() -> None:
    game = TakeThreeAgain()
    seat = general_seat(game, parse_seat("ai:10", TakeThreeAgain), seed=1)
    state = Heap(20)
    for left in (0.0, 0.005):
        assert seat.think(state, TurnTime(left=left), StopFlag()) in (1, 2, 3)
