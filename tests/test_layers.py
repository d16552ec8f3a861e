"""The layering of docs/architecture.md ("Layers"), checked on hub/'s import graph as the code
builds it: import statements (absolute and relative, inside functions and under
TYPE_CHECKING too) and the strings that name a hub module to be imported later
(``import_module("hub.x")``, ``lazy("hub.x:main")``, a plain ``"hub.x.y"`` handed to a
helper that imports it). Asserted: no import circle anywhere in hub/, no module importing a
layer above its own, no game importing another game, no generic layer importing a game, and
every game with adapters of its own playing through the core's match loop.

The graph builder takes sources as text, so a test can plant an import in memory and show
that the checker fails on it."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

import attrs
import pytest

import hub

ROOT = Path(hub.__file__).parent

CORE_LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("model", ("values", "referee", "clock", "events", "bus", "identity")),
    (
        "io",
        (
            "text",
            "output",
            "stdin",
            "lines",
            "process",
            "programs",
            "outbox",
            "listen",
            "limits",
            "serverlog",
            "serve",
            "lobby",
        ),
    ),
    (
        "play",
        (
            "kit",
            "game",
            "chance",
            "vocabulary",
            "record",
            "match",
            "seats",
            "threads",
            "fed",
            "person",
            "jsonbot",
            "session",
            "mcts",
        ),
    ),
    ("commands", ("usage", "running", "tour", "plugin")),
)
"""hub/core's subpackages from the bottom up, each with its modules. A core module is in the
layer of its subpackage (``hub.core.io.lines``) or, before hub/core is grouped into
subpackages, of its own name (``hub.core.io.lines``): the same table serves both."""

LAYERS: tuple[str, ...] = (
    "hub",
    *(f"hub.core.{name}" for name, _ in CORE_LAYERS),
    "hub.records",
    "hub.chess",
    "hub.web",
    "hub.declared",
    "hub.tournament",
    "hub.testing",
    "hub.games",
    "hub.cli",
)
"""Every layer from the bottom up: a module may import its own layer and those below it. The
package ``hub`` itself (its version) is the bottom; ``hub.core`` (a docstring) is with its
first subpackage; ``hub.entry`` (the console scripts' table) is with the command line."""

CONSOLE_SCRIPTS = "hub.entry"
"""The console scripts' table (like pyproject's ``[project.scripts]``): the one module outside
hub/games that names games, at the top layer beside ``hub.cli``."""

IMPORTERS = frozenset({"import_module", "__import__", "_main_of"})
"""Functions whose first argument is a module to import (a prefix ``"hub.x."`` of an
f-string names the package ``hub.x``)."""


@attrs.frozen
class Edge:
    """One import: ``source`` imports ``target`` at ``line`` (``how``: statement or string)."""

    source: str
    target: str
    line: int
    how: str

    def __str__(self) -> str:
        return f"{self.source}:{self.line} imports {self.target} ({self.how})"


def hub_sources(root: Path = ROOT) -> dict[str, str]:
    """Every module of hub/ by dotted name (a package by its own name), with its source."""
    sources: dict[str, str] = {}
    for path in sorted(root.rglob("*.py")):
        parts = [root.name, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        sources[".".join(parts)] = path.read_text()
    return sources


def packages(sources: Mapping[str, str]) -> set[str]:
    """The modules that are packages: those with a module below them."""
    return {name.rpartition(".")[0] for name in sources} & set(sources)


def _target(name: str, modules: set[str]) -> str | None:
    """The hub module that importing ``name`` runs last: ``name``, or its longest module prefix
    (``from hub.records import RecordStore`` imports the package ``hub.records``)."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def _module_of_string(text: str, modules: set[str], pkgs: set[str]) -> str | None:
    """The hub module a string constant names: ``"hub.x.y"`` or ``"hub.x.y:attr"`` for a module
    ``hub.x.y`` that is not a package (a package name is also a logger's or the entry points'
    group, ``"hub.games"``); None for anything else."""
    match = re.fullmatch(r"(hub(?:\.\w+)+)(?::[\w.]+)?", text)
    if match is None:
        return None
    name = match.group(1)
    if name in modules and (name not in pkgs or ":" in text):
        return name
    return None


def import_graph(sources: Mapping[str, str]) -> dict[str, list[Edge]]:
    """Each module's imports of other hub modules, from its source."""
    modules = set(sources)
    pkgs = packages(sources)
    graph: dict[str, list[Edge]] = {}
    for module, source in sources.items():
        here = module if module in pkgs else module.rpartition(".")[0]
        edges = set()
        for name, line, how in _names(ast.parse(source, module), here, modules, pkgs):
            target = _target(name, modules) if name else None
            if target is not None and target != module:
                edges.add(Edge(module, target, line, how))
        graph[module] = sorted(edges, key=lambda e: (e.line, e.target))
    return graph


def _names(
    tree: ast.AST, here: str, modules: set[str], pkgs: set[str]
) -> Iterator[tuple[str | None, int, str]]:
    """Every name a module imports or hands to an importer, with its line and how."""
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, line, "statement"
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")[: len(here.split(".")) - (node.level - 1)]
                parent = ".".join([*base, *([node.module] if node.module else [])])
            else:
                parent = node.module or ""
            for alias in node.names:
                full = f"{parent}.{alias.name}"
                yield (full if full in modules else parent), line, "statement"
        elif isinstance(node, ast.Call) and node.args and _called(node) in IMPORTERS:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                yield first.value, line, "string"
            elif isinstance(first, ast.JoinedStr) and first.values:
                head = first.values[0]
                if isinstance(head, ast.Constant) and isinstance(head.value, str):
                    yield head.value.rstrip("."), line, "string"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield _module_of_string(node.value, modules, pkgs), line, "string"


def _called(call: ast.Call) -> str:
    function = call.func
    if isinstance(function, ast.Attribute):
        return function.attr
    return function.id if isinstance(function, ast.Name) else ""


def layer_of(module: str) -> int | None:
    """The index in LAYERS of ``module``'s layer; None when no layer holds it."""
    if module == CONSOLE_SCRIPTS:
        return LAYERS.index("hub.cli")
    parts = module.split(".")
    if parts[:2] == ["hub", "core"]:
        if len(parts) == 2:
            return LAYERS.index(f"hub.core.{CORE_LAYERS[0][0]}")
        for name, members in CORE_LAYERS:
            if parts[2] == name or parts[2] in members:
                return LAYERS.index(f"hub.core.{name}")
        return None
    for length in range(len(parts), 0, -1):
        prefix = ".".join(parts[:length])
        if prefix in LAYERS:
            return LAYERS.index(prefix)
    return None


def game_of(module: str) -> str | None:
    """The game a module belongs to (``hub.games.kalah.rules`` -> ``kalah``), or None."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "games" else None


def circles(graph: Mapping[str, list[Edge]]) -> list[tuple[list[str], list[str]]]:
    """Each strongly connected set of more than one module, as a shortest circle through it
    (``a -> b -> a``) and all its modules: Tarjan's algorithm, iterative."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[tuple[list[str], list[str]]] = []
    targets = {m: sorted({e.target for e in edges}) for m, edges in graph.items()}
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(targets[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(targets.get(child, []))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                if len(members) > 1:
                    found.append((_one_circle(set(members), targets), sorted(members)))
    return found


def _one_circle(members: set[str], targets: Mapping[str, list[str]]) -> list[str]:
    """A shortest circle through the first of ``members`` (breadth first inside the set)."""
    start = min(members)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for child in targets[node]:
                if child == start:
                    return [*paths[node], start]
                if child in members and child not in paths:
                    paths[child] = [*paths[node], child]
                    following.append(child)
        frontier = following
    return sorted(members)  # unreachable for a strongly connected set


def upward_imports(graph: Mapping[str, list[Edge]]) -> list[str]:
    """Every import of a layer above the importer's own, with both layers."""
    problems = []
    for edges in graph.values():
        for edge in edges:
            own, other = layer_of(edge.source), layer_of(edge.target)
            if own is not None and other is not None and other > own:
                problems.append(f"{edge}: {LAYERS[own]} is below {LAYERS[other]}")
    return problems


def game_imports(graph: Mapping[str, list[Edge]]) -> list[str]:
    """Every import of a game by a generic layer, or by another game."""
    problems = []
    for edges in graph.values():
        for edge in edges:
            target_game = game_of(edge.target)
            if target_game is None or edge.source == CONSOLE_SCRIPTS:
                continue
            source_game = game_of(edge.source)
            if source_game is None:
                problems.append(f"{edge}: a generic layer names a game")
            elif source_game != target_game:
                problems.append(f"{edge}: a game imports another game")
    return problems


@pytest.fixture(scope="module")
def sources() -> dict[str, str]:
    return hub_sources()


@pytest.fixture(scope="module")
def graph(sources: dict[str, str]) -> dict[str, list[Edge]]:
    return import_graph(sources)


def games(sources: Mapping[str, str]) -> list[str]:
    return sorted({g for g in map(game_of, sources) if g is not None})


def test_the_seed_games_and_connect_four_are_there(sources: dict[str, str]) -> None:
    assert set(games(sources)) >= {"chess", "clubs", "connect4", "kalah", "uqchess"}


def test_every_module_is_in_a_layer(sources: dict[str, str]) -> None:
    unplaced = [module for module in sources if layer_of(module) is None]
    assert not unplaced, f"add these modules to a layer of {__name__}: {unplaced}"


def test_no_import_circles(graph: dict[str, list[Edge]]) -> None:
    found = [
        " -> ".join(circle) + f" (a knot of {len(knot)}: {', '.join(knot)})"
        for circle, knot in circles(graph)
    ]
    assert not found, "import circles:\n" + "\n".join(found)


def test_no_module_imports_a_layer_above_its_own(graph: dict[str, list[Edge]]) -> None:
    problems = upward_imports(graph)
    assert not problems, "\n".join(problems)


def test_no_game_is_imported_by_a_generic_layer_or_another_game(
    graph: dict[str, list[Edge]],
) -> None:
    problems = game_imports(graph)
    assert not problems, "\n".join(problems)


def test_every_game_with_adapters_plays_through_the_core_match_loop(
    sources: dict[str, str], graph: dict[str, list[Edge]]
) -> None:
    """A game with I/O of its own (it imports trio) reaches the core's loop (``match`` or
    ``seats``); a game without (Connect Four) is a declaration the declared layer plays."""
    for game in games(sources):
        own = [m for m in sources if game_of(m) == game]
        if not any(re.search(r"^\s*(import|from) trio\b", sources[m], re.M) for m in own):
            continue
        loop = [
            edge
            for module in own
            for edge in graph[module]
            if edge.target.rpartition(".")[2] in ("match", "seats")
            and edge.target.startswith("hub.core.")
        ]
        assert loop, f"no module of {game} uses the core's match loop"


# The checker itself, on planted sources: each must fail.


def _planted(sources: Mapping[str, str], module: str, line: str) -> dict[str, str]:
    planted = dict(sources)
    planted[module] = sources[module] + "\n" + line + "\n"
    return planted


def _core_module(sources: Mapping[str, str], name: str) -> str:
    return next(m for m in sources if m.startswith("hub.core.") and m.endswith("." + name))


def test_an_upward_import_module_string_is_caught(sources: dict[str, str]) -> None:
    text = _core_module(sources, "text")
    planted = import_graph(
        _planted(sources, text, 'from importlib import import_module\nimport_module("hub.web.app")')
    )
    problems = [p for p in upward_imports(planted) if p.startswith(f"{text}:")]
    assert problems == [
        f"{text}:{len(sources[text].splitlines()) + 3} imports hub.web.app (string): "
        f"{LAYERS[layer_of(text) or 0]} is below hub.web"
    ]


def test_a_module_function_string_naming_a_game_is_caught(sources: dict[str, str]) -> None:
    planted = import_graph(_planted(sources, "hub.web.app", 'X = "hub.games.kalah.server:main"'))
    assert [p for p in game_imports(planted) if p.startswith("hub.web.app:")] == [
        f"hub.web.app:{len(sources['hub.web.app'].splitlines()) + 2} imports "
        "hub.games.kalah.server (string): a generic layer names a game"
    ]


def test_a_relative_import_inside_a_function_is_read(sources: dict[str, str]) -> None:
    planted = import_graph(
        _planted(sources, "hub.records.render", "def f():\n    from ..tournament import runner")
    )
    assert any(
        e.target == "hub.tournament.runner" and e.how == "statement"
        for e in planted["hub.records.render"]
    )


def test_a_planted_circle_is_reported() -> None:
    found = circles(
        import_graph(
            {
                "hub": "",
                "hub.a": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import hub.b",
                "hub.b": "def f():\n    from hub.c import x",
                "hub.c": 'from importlib import import_module\nimport_module("hub.a")',
            }
        )
    )
    assert found == [(["hub.a", "hub.b", "hub.c", "hub.a"], ["hub.a", "hub.b", "hub.c"])]


def test_strings_that_are_not_modules_are_not_imports() -> None:
    graph = import_graph(
        {
            "hub": "",
            "hub.games": "",
            "hub.games.kalah": "",
            "hub.core": "",
            "hub.core.names": 'G = "hub.games"\nlog = "hub.serve"\nDOC = "see hub.games.kalah"',
        }
    )
    assert graph["hub.core.names"] == []
