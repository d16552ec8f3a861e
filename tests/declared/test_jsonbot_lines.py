"""The JSON bot lines formatted by hand (`JsonCodec.turn_lines`, `moved_line`) are the bytes
``dumps`` made of the messages' dicts, and a move read through the turn's own texts is the
move `Game.parse_move` reads, for every installed declared game, through random games."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest
import trio
import trio.testing

from hub.core.model.clock import SeatClock, TimeControl
from hub.core.play.game import BadMove, Game, legal_texts
from hub.core.play.jsonbot import JsonCodec, dumps, moved_line
from hub.core.play.seats import BadMoveLine
from hub.core.play.vocabulary import Turn
from hub.declared.plugin import discover_games


def declared_games() -> list[Game[Any, Any]]:
    games = []
    for _name, plugin in sorted(discover_games().items()):
        declaration = plugin.declaration()
        if declaration is not None:
            games.append(declaration())
    return games


GAMES = declared_games()


def expected_turn(game: Game[Any, Any], seat: int, turn: Turn[Any]) -> str:
    """What the turn line was: ``dumps`` of its dict."""
    left = turn.time_left()
    return dumps(
        {
            "type": "turn",
            "ply": turn.ply,
            "view": game.view(turn.state, seat),
            "legal": legal_texts(game, turn.state),
            "clock": {"left_ms": round(left * 1000)} if math.isfinite(left) else {},
        }
    )


def variants(text: str) -> list[str]:
    return [text, text.upper(), text.lower(), f"  {text} ", f"{text}\t", text.swapcase()]


def test_the_moved_line_is_the_dumped_dict() -> None:
    for seat, text in [(0, "4"), (1, "e2e4"), (11, 'a"b\\c\u00e9\u2603\n\x01'), (2, "")]:
        expected = dumps({"type": "moved", "seat": seat, "move": text})
        assert moved_line(seat, text) == expected
        assert json.loads(moved_line(seat, text)) == {"type": "moved", "seat": seat, "move": text}


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.name)
async def test_turn_lines_and_moves_read_as_before(
    game: Game[Any, Any], autojump_clock: trio.testing.MockClock
) -> None:  # (the clock: the time left is the same when the expected line is made)
    assert len(GAMES) >= 4  # connect4, kalah, chess, clubs at least
    rng = random.Random(7)
    codec = JsonCodec(game)
    controls = [TimeControl.parse("none"), TimeControl.parse("60+1")]
    plies = 0
    for _game in range(3):
        state = game.start(rng)
        while (seat := game.to_move(state)) is not None and plies < 400:
            plies += 1
            control = controls[plies % 2]
            clock = SeatClock(control)
            turn = Turn(seat, state, clock.start(trio.current_time()), clock, plies)
            assert codec.turn_lines(seat, turn) == [expected_turn(game, seat, turn)]
            legal = game.legal_moves(state)
            texts = [v for move in legal for v in variants(game.move_text(state, move))]
            for text in [*texts, "", "zz", "0", "99", "resign"]:  # and candidates, or none
                line = json.dumps({"move": text})
                try:
                    wanted = game.parse_move(state, text)
                except BadMove:
                    with pytest.raises(BadMoveLine):
                        codec.parse_move(seat, line, state)
                    continue
                assert codec.parse_move(seat, line, state) == wanted
            state = game.apply(state, rng.choice(list(legal)))
    assert plies > 20
