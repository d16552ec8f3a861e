"""Command-line options of `hub serve kalah` and `hub play kalah`."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from hub.core.commands.usage import HelpRequested
from hub.core.play.game import SettingsError
from hub.games.kalah.game import KalahGame
from hub.games.kalah.options import OptionsError, parse_play, parse_serve
from hub.games.kalah.settings import KalahSettings, parse_layout


def test_serve_defaults_and_values() -> None:
    options = parse_serve([])
    assert (options.port, options.host, options.games) == ("0", "localhost", None)
    game, settings = options.game, options.game.settings
    assert (settings.holes, settings.seeds, settings.time_ms) == (6, 4, 5000)
    assert game.server_limit_ms == 5000
    assert (game.first, game.opponent, game.level, settings.pie) == ("client", "ai", 9, False)
    argv = "--listenOn mysql --holes 9 --seeds 10 --random --pie --time-ms 0"
    argv += " --server-time-ms 250 --first random --opponent client --level 3 --seed 7"
    options = parse_serve([*argv.split(), "--host", ""])
    game, settings = options.game, options.game.settings
    assert options.port == "mysql" and options.host is None
    assert (settings.holes, settings.seeds, settings.random, settings.pie) == (9, 10, True, True)
    assert (settings.time_ms, game.server_limit_ms, game.first) == (0, 250, "random")
    assert (game.opponent, game.level, game.seed) == ("client", 3, 7)


def test_layout_sets_holes_and_seeds() -> None:
    settings = parse_serve(["--layout", "6,4,7,6,5,8"]).game.settings
    assert (settings.holes, settings.seeds, settings.layout) == (6, 6, (6, 4, 7, 6, 5, 8))


@pytest.mark.parametrize(
    "argv",
    [
        ["--holes", "0"],
        ["--holes", "21"],
        ["--seeds", "x"],
        ["--time-ms", "-1"],
        ["--first", "both"],
        ["--opponent", "robot"],
        ["--level", "10"],
        ["--layout", "1,2,x"],
        ["--layout", "1,2,4"],  # 7 seeds do not fill 3 holes evenly
        ["--layout", "1,2,3", "--holes", "4"],
        ["--layout", "3,3", "--random"],
        ["--listenOn", ""],
        ["--script", "P,9"],
        ["--unknown"],
        ["extra"],
    ],
)
def test_bad_serve_arguments(argv: list[str]) -> None:
    with pytest.raises(OptionsError):
        parse_serve(argv)


def test_play_options() -> None:
    options = parse_play([])
    assert options.connect is None and options.human and options.game.settings.time_ms == 0
    options = parse_play(["--connect", "localhost:3000", "--ai", "--level", "4", "--pie"])
    assert options.connect == "localhost:3000" and not options.human
    assert options.game.level == 4 and options.game.settings.pie
    for argv in (["--human", "--ai"], ["--opponent", "client"]):
        with pytest.raises(OptionsError):
            parse_play(argv)


@pytest.mark.parametrize("parse", [parse_serve, parse_play])
def test_help_wins_wherever_it_is(parse: Callable[[list[str]], object]) -> None:
    for argv in (["--help"], ["-h"], ["--holes", "3", "--help"], ["--help", "--holes", "0"]):
        with pytest.raises(HelpRequested) as caught:
            parse(argv)
        assert caught.value.text.startswith("usage: hub ")
        assert "--time-ms T" in caught.value.text


def test_random_and_layout_exclude_each_other_in_either_order() -> None:
    for argv in (["--random", "--layout", "3,3"], ["--layout", "3,3", "--random"]):
        with pytest.raises(OptionsError, match="exclude each other"):
            parse_play(argv)


def test_the_plugin_is_installed_and_lazy() -> None:
    import subprocess
    import sys

    from hub.core.commands.plugin import discover

    plugin = discover()["kalah"]
    assert plugin.play and plugin.serve and plugin.demo
    code = (
        "import sys, hub.games.kalah.plugin; print(sorted(m for m in sys.modules if 'kalah' in m))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['hub.games.kalah', 'hub.games.kalah.plugin']"


def test_settings_are_decided_and_checked_in_one_place() -> None:
    assert parse_layout(" 6, 4 7") == (6, 4, 7) and parse_layout("  ") is None
    with pytest.raises(ValueError, match="seed counts"):
        parse_layout("1,x")
    assert KalahSettings.given() == KalahSettings(6, 4)
    chosen = KalahSettings.given(layout=(6, 4, 7, 6, 5, 8))
    assert (chosen.holes, chosen.seeds) == (6, 6)
    for holes, seeds, randomly, layout, problem in [
        (6, None, False, (1, 2, 3), "the layout has 3 counts for 6 holes"),
        (None, None, False, (1, 2, 3, 1), "multiple of 4"),
        (None, 2, False, (1, 2, 3, 0), "a layout must hold 8 seeds, not 6"),
        (None, None, True, (4, 4), "exclude each other"),
    ]:
        with pytest.raises(ValueError, match=problem):
            KalahSettings.given(holes, seeds, random=randomly, layout=layout)
        # the command line and the declaration say the same
        argv = [
            *(["--holes", str(holes)] if holes else []),
            *(["--seeds", str(seeds)] if seeds else []),
        ]
        argv += ["--layout", ",".join(map(str, layout)), *(["--random"] if randomly else [])]
        with pytest.raises(OptionsError, match=problem):
            parse_serve(argv)
        declared: dict[str, object] = {"layout": ",".join(map(str, layout)), "random": randomly}
        declared.update({"holes": holes} if holes else {})
        declared.update({"seeds": seeds} if seeds else {})
        with pytest.raises(SettingsError, match=problem):
            KalahGame(declared)
    # given, random or the standard start: decided once
    assert chosen.layout_for(random.Random(1)) == (6, 4, 7, 6, 5, 8)
    assert KalahSettings.given().layout_for(random.Random(1)) is None
    drawn = KalahSettings.given(4, 3, random=True).layout_for(random.Random(5))
    assert drawn is not None and len(drawn) == 4 and sum(drawn) == 12
    assert (
        KalahGame({"holes": 4, "seeds": 3, "random": True}).start(random.Random(5)).side(0) == drawn
    )
