"""Kalah on the game declaration (`hub.games.kalah.game.KalahGame`): rules through the
conformance suite, settings, notation, views and pictures (the records' and web's drawings,
now the game's own), and through the installed ``hub``: ``hub play kalah human ai:9`` with a
person typing, the JSON example bot over pipes and in ``hub match``, and ``hub games show``
drawing a recorded board from the game's package."""

from __future__ import annotations

import json
import math
import random
import re
import subprocess
from pathlib import Path

import pytest

from hub.core.commands.plugin import discover, pictures
from hub.core.model.referee import IllegalMove
from hub.core.play.game import BadMove, SettingsError, legal_texts
from hub.core.play.threads import StopFlag
from hub.games.kalah import ai
from hub.games.kalah.codec import state_view
from hub.games.kalah.game import KalahGame
from hub.games.kalah.options import has_seat_specs
from hub.games.kalah.pictures import board_html, text_lines
from hub.games.kalah.rules import PIE, KalahState, new_game, play, turn
from hub.testing import check_game
from tests.conftest import program

ROOT = Path(__file__).resolve().parents[2]
PY_BOT = str(ROOT / "players" / "json_bot.py")


@pytest.mark.parametrize(
    "settings",
    [{}, {"holes": 3, "seeds": 2, "pie": True}, {"random": "yes", "seeds": 5}, {"layout": "3,0,6"}],
)
def test_the_rules_pass_the_conformance_suite(settings: dict[str, object]) -> None:
    def make(rng: random.Random) -> tuple[KalahGame, KalahState]:
        game = KalahGame(settings)
        return game, game.start(rng)

    check_game(make, playouts=10)


def test_settings_are_the_kalah_options_checked() -> None:
    game = KalahGame({"layout": "6,4,7,6,5,8"})
    assert (game.settings["holes"], game.settings["seeds"]) == (6, 6)
    assert game.start(random.Random(0)) == new_game(6, 6, layout=(6, 4, 7, 6, 5, 8))
    drawn = KalahGame({"random": True, "holes": 4, "seeds": 3}).start(random.Random(7))
    assert drawn.side(0) == drawn.side(1) and sum(drawn.side(0)) == 12
    assert KalahGame({"pie": "yes"}).start(random.Random(0)).pie
    with pytest.raises(SettingsError, match="holes must be at most 20, not 21"):
        KalahGame({"holes": 21})
    with pytest.raises(SettingsError, match="exclude each other"):
        KalahGame({"layout": "1,2,3", "random": True})
    with pytest.raises(SettingsError, match="layout: a layout must hold 8 seeds, not 6"):
        KalahGame({"layout": "1,2,3,0", "seeds": 2})
    with pytest.raises(SettingsError, match="layout must be seed counts"):
        KalahGame({"layout": "1,x"})


def test_notation_is_the_protocol_and_tells_a_non_move_from_an_illegal_move() -> None:
    game = KalahGame({"holes": 4, "seeds": 1})
    state = game.start(random.Random(0))
    assert legal_texts(game, state) == ["1", "2", "3", "4 1", "4 2", "4 3"]
    assert game.parse_move(state, " 4,3 ") == turn(4, 3)
    assert game.parse_move(state, "p") == PIE
    with pytest.raises(BadMove, match="no hole 5"):
        game.parse_move(state, "5")
    with pytest.raises(IllegalMove, match="the turn must go on"):
        game.apply(state, game.parse_move(state, "4"))


def test_views_are_the_state_views_and_the_movers_own_view_knows_the_pie() -> None:
    game = KalahGame({"holes": 3, "seeds": 2, "pie": True})
    state = play(game.start(random.Random(0)), turn(1))
    assert game.view(state) == state_view(state) == game.view(state, None)
    assert game.view(state, 0) == state_view(state)
    assert game.view(state, 1) == {**state_view(state), "pie": True}
    after = play(state, PIE)
    assert game.view(after, 0) == state_view(after)


def test_the_text_picture_is_the_records_drawing() -> None:
    view = {"holes": 2, "board": [1, 120, 7, 3, 0, 45], "to_move": None, "swapped": False}
    assert text_lines(view, ["ann", "bob"]) == [
        "       0   3    seat 1 bob (holes 2..1)",
        " 45             7",
        "       1 120    seat 0 ann (holes 1..2)",
        "     over",
    ]
    swapped = {"holes": 2, "board": [1, 2, 0, 3, 4, 0], "to_move": 0, "swapped": True}
    assert KalahGame.pictures.text(swapped).splitlines() == [
        "     4  3    seat 1 South (holes 2..1)",
        " 0          0",
        "     1  2    seat 0 North (holes 1..2)",
        "    seat 0 to move, sides swapped (pie rule)",
    ]
    declared = pictures("kalah")
    assert declared is not None and isinstance(declared, KalahGame)
    assert declared.pictures.text(view, ["ann", "bob"]).splitlines() == text_lines(
        view, ["ann", "bob"]
    )


def test_the_html_picture_marks_the_clickable_holes_and_the_pie() -> None:
    # seat 1 to move (North): hole 1 has 2 seeds (ends in hole 3: a whole turn); hole 2
    # has 2 (ends in its store: it must go on); hole 3 is empty
    game = KalahGame({"holes": 3, "seeds": 2, "pie": True})
    state = KalahState(3, (0, 3, 3, 0, 2, 2, 0, 0), mover=1, turns=1, pie=True)
    mine = board_html(game.view(state, 1))
    board, after_2 = re.fullmatch(
        r'(.*?)<template data-after="2">(.*?)</template>.*', mine
    ).groups()
    assert re.findall(r'data-part="(\d)"( data-move="\d")?', board) == [
        ("2", ""),
        ("1", ' data-move="1"'),
    ]
    # after sowing 2 the turn goes on: the board then, where hole 3 (empty at the turn's
    # start) may be sown too; its parts end the turn when joined ("2 3", "2 1")
    assert re.findall(r'data-part="(\d)"( data-move="\d")?', after_2) == [("3", ""), ("1", "")]
    assert re.findall(r"<b>(\d+)</b>", after_2) == ["1", "1", "0", "2", "0", "3", "3", "0"]
    assert 'data-move="P"' in mine
    spectators = game.pictures.html(game.view(state))
    assert 'data-move="P"' not in spectators and 'data-part="1"' in spectators
    over = game.pictures.html(state_view(KalahState(3, (0, 0, 0, 6, 0, 0, 0, 6), mover=None)))
    assert "data-part" not in over and "data-move" not in over


def test_the_seat_names_follow_the_pie_swap() -> None:
    game = KalahGame()
    assert [game.seat_name(s, {"swapped": False}) for s in (0, 1)] == ["South", "North"]
    assert [game.seat_name(s, {"swapped": True}) for s in (0, 1)] == ["North", "South"]
    assert [game.seat_name(s) for s in (0, 1)] == ["seat 0", "seat 1"]  # a whole game's


def test_the_ai_is_the_search_and_plays_perfectly_when_it_can_solve() -> None:
    game = KalahGame({"holes": 3, "seeds": 2})
    state = game.start(random.Random(0))
    solved = ai.KalahSearch(3, state.total).run(state, max_depth=ai.LEVEL_DEPTH[9])
    assert solved.solved
    assert KalahGame.ai is not None
    assert KalahGame.ai.move(game, state, 9, math.inf, StopFlag()) == solved.move
    assert KalahGame.ai.move(game, state, 9, 30.0, StopFlag()) == solved.move


def test_the_plugin_is_the_declaration_with_kalahs_own_commands() -> None:
    plugin = discover()["kalah"]
    assert plugin.declaration() is KalahGame  # imported when needed: the module stays light
    assert (plugin.name, plugin.summary) == (KalahGame.name, KalahGame.summary)
    assert plugin.serve is not None and "kalah.server" in plugin.serve.__name__
    assert plugin.demo is not None and plugin.match is not None
    assert has_seat_specs(["human", "ai:9"]) and has_seat_specs(["--holes", "4", "human"])
    assert has_seat_specs(["--pie", "yes"])  # the generic form of a setting
    for legacy in ([], ["--ai"], ["--connect", "h:1", "--human"], ["--level=3", "--pie"]):
        assert not has_seat_specs(legacy), legacy
    assert not has_seat_specs(["--conn", "h:1", "--time-ms", "0"])  # an abbreviation


# -- through the installed hub ---------------------------------------------------------------


def hub(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [program("hub"), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_person_plays_the_ai_at_level_9_and_the_game_is_shown_from_its_record() -> None:
    # 3 holes of 1 seed: the AI solves every position, so its replies are fixed
    done = hub("play", "kalah", "human", "ai:9", "--holes", "3", "--seeds", "1",
               stdin="9\n3\n1\n")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(
        "kalah: South: you, North: ai:9\n"
        "     1  1  1    seat 1 North (holes 3..1)\n"
        " 0             0\n"
        "     1  1  1    seat 0 South (holes 1..3)\n"
        "    seat 0 to move\n"
        "South to move: '9' is not a Kalah move: no hole 9: holes are 1 to 3\n"
        "legal moves: 1, 2, 3 1, 3 2\n"
        "South to move: 3 is not allowed: the last seed fell in the store: the turn must go on\n"
        "legal moves: 1, 2, 3 1, 3 2\n"
        "South to move: South (you) plays 1\n"
    ), done.stdout
    assert "North (ai:9) plays 3 1\n" in done.stdout
    exported = hub("games", "export", "--game", "kalah")
    (record,) = [json.loads(line) for line in exported.stdout.splitlines()]
    assert record["moves"][0]["move"] == "1" and record["players"][1]["name"] == "ai:9"
    shown = hub("games", "show", record["game_id"])
    assert shown.returncode == 0, shown.stderr
    assert (
        "1. seat 0 you: 1 (" in shown.stdout
        and "         1  1  1    seat 1 ai:9 (holes 3..1)\n"
        "     0             0\n"
        "         0  2  1    seat 0 you (holes 1..3)\n"
        "        seat 1 to move\n"
        in shown.stdout
    ), shown.stdout


def test_the_json_example_bot_plays_whole_games_over_pipes() -> None:
    for seats in ([PY_BOT, "ai:3"], ["ai:3", PY_BOT]):
        done = hub("play", "kalah", *seats, "--holes", "4", "--seeds", "3", "--pie", "yes",
                   "--seed", "5", "--no-record")  # fmt: skip
        assert done.returncode == 0, done.stderr
        first, last = done.stdout.splitlines()[0], done.stdout.rstrip().splitlines()[-1]
        assert first == f"kalah: South: {Path(seats[0]).name}, North: {Path(seats[1]).name}"
        assert re.fullmatch(
            r"(South|North) \((json_bot\.py|ai:3)\) wins( \d+-\d+)?|a draw", last
        ), last


def test_hub_match_seats_the_json_example_bot_with_json() -> None:
    done = hub("match", "kalah", f"json:{PY_BOT}", "ai:4", "--games", "4", "--holes", "4",
               "--seeds", "3", "--time-ms", "0", "--no-record")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "kalah, 4 of 4 games scored, 0 aborted, complete" in done.stdout
    rows = {line.split()[1]: line.split() for line in done.stdout.splitlines()[1:4]}
    assert rows[f"json:{PY_BOT}"][2] == "4"  # four games, none lost by a fault
    assert rows[f"json:{PY_BOT}"][-4:] == ["0", "0", "0", "0"]
    bad = hub("match", "kalah", "json:ai:3", "ai:4")
    assert bad.returncode == 2 and "json: names a program" in bad.stderr


def test_a_chain_of_many_sowings_draws_no_boards_between_them() -> None:
    """Past `MAX_STAGES` unfinished prefixes a picture carries none (pages get buttons)."""
    from hub.games.kalah.pictures import MAX_STAGES

    # hole h holds 7 - h seeds: each sowing ends in the store, 258 unfinished prefixes
    chained = {"holes": 6, "board": [6, 5, 4, 3, 2, 1, 0, 1, 1, 1, 1, 1, 1, 0], "to_move": 0}
    few = {"holes": 3, "board": [0, 2, 2, 0, 1, 1, 1, 0], "to_move": 0}
    assert board_html(chained).count("<template") == 0 < board_html(few).count("<template")
    assert MAX_STAGES == 64
