"""One name per concept (docs/decisions.md, "One name, one concept"), checked on hub/'s source:
no type name (a class, or a module's type alias such as ``Game = LiveGame | GameRecord``)
is defined twice in the generic layers (everything outside hub/games: the core, declared, web,
records, tournament, the chess library, the command line), none in a game shadows one of
theirs, and none is defined twice inside one game. Two games may each keep a name of their
own (each its wire message ``Start``, say). A leading underscore does not make another name:
a private ``_Session`` is still a ``Session``."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Iterator, Mapping
from pathlib import Path

import hub

ROOT = Path(hub.__file__).parent
GENERIC = "generic"
TYPE_NAME = re.compile(r"_*[A-Z]\w*[a-z]\w*")
"""CapWords (a constant in capitals is no type)."""
TYPE_VALUES = (ast.Subscript, ast.BinOp, ast.Attribute, ast.Name)
"""What a module-level type alias assigns: ``X[...]``, ``A | B``, ``m.X``, ``X``."""


def type_names(source: str) -> Iterator[tuple[str, int]]:
    """The classes (at any depth) and module-level type aliases a module defines."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            yield node.name, node.lineno
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and TYPE_NAME.fullmatch(node.targets[0].id)
            and isinstance(node.value, TYPE_VALUES)
        ):
            yield node.targets[0].id, node.lineno
        elif (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and "TypeAlias" in ast.unparse(node.annotation)
        ):
            yield node.target.id, node.lineno


def group_of(relative: Path) -> str:
    """``generic``, or ``games.NAME`` for a module of a game."""
    parts = relative.parts
    return f"games.{parts[1]}" if parts[0] == "games" and len(parts) > 2 else GENERIC


def definitions(sources: Mapping[Path, str]) -> dict[str, list[tuple[str, str]]]:
    """Each type name (without leading underscores) -> [(group, "path:line"), ...]."""
    found: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for relative, source in sorted(sources.items()):
        for name, line in type_names(source):
            found[name.lstrip("_")].append((group_of(relative), f"hub/{relative}:{line}"))
    return found


def clashes(sources: Mapping[Path, str]) -> dict[str, list[str]]:
    """The names the rule refuses, each with every place that defines it."""
    refused = {}
    for name, places in definitions(sources).items():
        groups = [group for group, _ in places]
        generic = groups.count(GENERIC)
        per_game = [groups.count(g) for g in set(groups) if g != GENERIC]
        if generic > 1 or (generic and per_game) or any(n > 1 for n in per_game):
            refused[name] = [where for _, where in places]
    return refused


def hub_sources() -> dict[Path, str]:
    return {path.relative_to(ROOT): path.read_text() for path in sorted(ROOT.rglob("*.py"))}


def test_one_name_per_concept() -> None:
    refused = clashes(hub_sources())
    assert not refused, f"{len(refused)} names defined more than once:\n" + "\n".join(
        f"{name}: {', '.join(places)}" for name, places in sorted(refused.items())
    )


def test_the_rule_refuses_each_kind_of_clash() -> None:
    sources = {
        Path("core/a.py"): "class Lobby: ...\nHandler = int | None\n",
        Path("web/b.py"): "class _Lobby: ...\n",
        Path("records/c.py"): "from typing import TypeAlias\nHandler: TypeAlias = str\n",
        Path("games/x/d.py"): "class Start: ...\nclass Tally: ...\nMAX = int\n",
        Path("games/y/e.py"): "class Start: ...\ndef f():\n    class Tally: ...\n",
        Path("games/y/f.py"): "class Start: ...\n",
        Path("tournament/g.py"): "class Tally: ...\n",
    }
    assert clashes(sources) == {
        "Lobby": ["hub/core/a.py:1", "hub/web/b.py:1"],
        "Handler": ["hub/core/a.py:2", "hub/records/c.py:2"],
        "Start": ["hub/games/x/d.py:1", "hub/games/y/e.py:1", "hub/games/y/f.py:1"],
        "Tally": ["hub/games/x/d.py:2", "hub/games/y/e.py:3", "hub/tournament/g.py:1"],
    }
