"""docs/web.md, "For a game's author": a game's picture marks what may be clicked with
``data-move``/``data-part`` and never writes the class ``legal`` (or ``part``) itself: the
seat's page adds it on that seat's turn only. Checked for every installed declared game, in
every seat's view and the spectator's, over a few random plies; and ``hub serve``'s help says
where its port is printed."""

from __future__ import annotations

import random
import re
import subprocess

import pytest

from hub.core.commands.plugin import discover
from tests.conftest import program

MARKED = re.compile(r"""class=["'](?:[^"']*\s)?(legal|part)["'\s]""")
PLIES = 6


def declared_games() -> list[str]:
    return [name for name, plugin in discover().items() if plugin.declaration() is not None]


@pytest.mark.parametrize("name", declared_games())
def test_a_picture_never_marks_moves_legal_itself(name: str) -> None:
    declaration = discover()[name].declaration()
    assert declaration is not None
    game = declaration()
    rng = random.Random(7)
    state = game.start(rng)
    for _ in range(PLIES):
        for seat in [None, *range(game.seats(state))]:
            html = game.pictures.html(game.view(state, seat))
            assert not MARKED.search(html), (name, seat, MARKED.search(html))
        if game.to_move(state) is None:
            break
        state = game.apply(state, rng.choice(list(game.legal_moves(state))))


def test_hub_serve_says_in_its_help_where_the_port_is_printed() -> None:
    done = subprocess.run(
        [program("hub"), "serve", "connect4", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    assert "port it listens on is printed alone on the first line of stderr" in " ".join(
        done.stdout.split()
    )
