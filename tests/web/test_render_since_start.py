"""Chess pages show the position a game started from (an opening of ``hub match``, a FEN of
``hub play chess --fen``) and each side's captured pieces: in the renderer, in a replay of a
recorded match game, and on a browser seat's page."""

from __future__ import annotations

import random
import re
from typing import Any

import chess
import trio.testing

from hub.chess.game import ChessGame
from hub.core.model.bus import EventBus
from hub.core.model.values import PlayerInfo
from hub.core.play.kit import GameSpec
from hub.core.play.match import Match
from hub.declared.browser import SeatDesk
from hub.declared.kit import DeclaredKit
from hub.declared.seats import RandomSeat
from hub.games.chess.game import ChessMatchGame
from hub.games.chess.openings import opening
from hub.games.chess.players import ChessSettings
from hub.web.render import Position, render_position
from hub.web.views import ply_json
from tests.web.helpers import chess_view

SCOTCH_MOVES = "e2e4 e7e5 g1f3 b8c6 d2d4 e5d4 f3d4 g8f6"
SCOTCH = opening("Scotch Game", SCOTCH_MOVES.split())


def players() -> tuple[PlayerInfo, PlayerInfo]:
    return PlayerInfo("w", "program"), PlayerInfo("b", "program")


def view_after(moves: list[str], fen: str = chess.STARTING_FEN) -> Any:
    board = chess.Board(fen)
    for move in moves:
        board.push_uci(move)
    return chess_view(board)


def captured(html: str) -> tuple[str, str]:
    found = re.findall(
        r'<li class="captured-by-(\w+)"><span class="side">[^<]*</span> '
        r'(?:<span class="pieces">)?([^<]*)<',
        html,
    )
    return dict(found)["white"], dict(found)["black"]


def test_a_game_from_an_opening_shows_where_it_started_and_what_was_taken() -> None:
    start = view_after(SCOTCH["moves"])
    now = view_after([*SCOTCH["moves"], "d4c6", "b7c6"])  # Nxc6 bxc6
    html = render_position(
        Position(
            "chess", players(), now, ply=2, start=start, settings={"opening": SCOTCH, "tc": "1+0"}
        )
    )
    assert "Started from" in html and "Scotch Game" in html
    assert "1. e4 e5 2. Nf3 Nc6 3. d4 exd4 4. Nxd4 Nf6" in html
    assert chess.Board(start["fen"]).fen() in html  # the FEN the game's own moves start from
    assert 'class="start-board"' in html and html.count("<svg") == 2
    assert captured(html) == ("\u265e\u265f", "\u2658\u2659")  # ♞♟ and ♘♙: level, no lead
    assert 'class="lead"' not in html


def test_material_lead_and_a_promotion_is_not_a_capture() -> None:
    fen = "4k3/P7/8/8/8/8/8/4K2R w - - 0 1"  # hub play chess --fen
    start = view_after([], fen)
    html = render_position(
        Position(
            "chess",
            players(),
            view_after(["a7a8q"], fen),
            start=start,
            settings={"fen": fen},
        )
    )
    assert "Started from" in html and "this position" in html and fen in html
    assert captured(html) == ("nothing", "nothing")  # the pawn was promoted, not taken
    taken = render_position(
        Position(
            "chess",
            players(),
            view_after(["h1h8", "e8d7", "h8d8", "d7d8"], "3qk3/8/8/8/8/8/8/4K2R w - - 0 1"),
            start=view_after([], "3qk3/8/8/8/8/8/8/4K2R w - - 0 1"),
        )
    )
    assert captured(taken) == ("\u265b", "\u2656")  # ♛ for ♖: White leads by 4
    assert '<span class="lead">+4</span>' in taken


def test_the_usual_start_shows_only_the_captures() -> None:
    html = render_position(
        Position("chess", players(), view_after(["e2e4", "d7d5", "e4d5"]), start=view_after([]))
    )
    assert "Started from" not in html
    assert captured(html) == ("\u265f", "nothing")
    assert "captured" not in render_position(Position("chess", players(), view_after([])))


async def test_a_recorded_match_game_replays_with_its_opening_at_every_ply() -> None:
    settings = {**ChessSettings("none", "builtin", 4).to_json()}
    record = await DeclaredKit(ChessMatchGame).play(
        GameSpec("g1", settings, ("ai:1", "ai:1"), SCOTCH), EventBus()
    )
    assert record.settings["opening"]["name"] == "Scotch Game"
    for ply in (0, len(record.moves)):
        shown = ply_json(record, ply)
        assert shown is not None
        html = str(shown["html"])
        assert "Scotch Game" in html and "4. Nxd4 Nf6" in html
        white, black = captured(html)
        assert "\u265f" in white and "\u2659" in black  # the opening's exchange on d4


async def test_a_browser_seat_page_shows_the_start_and_the_captures(
    nursery: trio.Nursery,
) -> None:
    fen = "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1"
    game = ChessGame({"fen": fen})
    seat = SeatDesk().open(game)
    black = RandomSeat(game, random.Random(0), PlayerInfo("random"))
    match = Match(game, game.start(random.Random(0)), [seat, black])
    nursery.start_soon(match.run)
    await trio.testing.wait_all_tasks_blocked()
    assert "Started from" in seat.snapshot()["html"] and fen in seat.snapshot()["html"]
    assert seat.submit("e4d5") is None
    await trio.testing.wait_all_tasks_blocked()
    assert captured(seat.snapshot()["html"])[0] == "\u265f"
    snapshot = seat.snapshot()
    assert snapshot["moves"][0] == "1. exd5" and snapshot["numbered"]  # SAN, numbered
    match.stop(None)
