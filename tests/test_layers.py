"""The layering of docs/architecture.md, checked on the source: no game imports another game,
the core, the chess library and everything beyond one game (records, web, tournament) import
no game, and every game plays through the core match loop (no loop of its own)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import hub

ROOT = Path(hub.__file__).parent
GAMES = sorted(p.name for p in (ROOT / "games").iterdir() if (p / "plugin.py").exists())


def imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def modules(package: Path) -> list[Path]:
    return sorted(package.rglob("*.py"))


def test_the_four_games_are_plugins() -> None:
    assert set(GAMES) >= {"chess", "clubs", "kalah", "uqchess"}


@pytest.mark.parametrize("game", GAMES)
def test_no_game_imports_another_game(game: str) -> None:
    for path in modules(ROOT / "games" / game):
        for name in imports(path):
            if name.startswith("hub.games."):
                assert name.split(".")[2] == game, f"{path} imports {name}"


@pytest.mark.parametrize("layer", ["core", "chess", "records", "web", "tournament"])
def test_shared_layers_import_no_game(layer: str) -> None:
    for path in modules(ROOT / layer):
        for name in imports(path):
            assert not name.startswith("hub.games"), f"{path} imports {name}"


def test_core_imports_nothing_above_it() -> None:
    for path in modules(ROOT / "core"):
        for name in imports(path):
            if name.startswith("hub."):
                assert name.startswith("hub.core"), f"{path} imports {name}"


@pytest.mark.parametrize("game", GAMES)
def test_every_game_plays_through_the_core_match_loop(game: str) -> None:
    users = [
        path
        for path in modules(ROOT / "games" / game)
        if any(name in ("hub.core.match", "hub.core.seats") for name in imports(path))
    ]
    assert users, f"no module of {game} uses hub.core.match"
