"""``hub games history|show|export|stats|ratings``: the recorded games (docs/records.md).

``hub games`` alone (the installed games) stays in hub/cli.py, which hands everything after
``games`` to `main` here. Exit status: 0 done, 1 no such game or an unusable database,
2 a usage error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, TextIO

from hub.core.io.output import Output, write_all
from hub.core.model.referee import Termination
from hub.records.commands import run
from hub.records.database import Location, database_errors, exists, one_line
from hub.records.elo import PRIOR_ELO, Rated, RatingError, RatingList, fit
from hub.records.export import jsonl_line
from hub.records.options import add_db_option, db_path
from hub.records.render import header_lines, replay_lines, summary_words, table, when
from hub.records.store import GameSummary, RecordStore, StoredGame

if TYPE_CHECKING:
    from hub.core.play.game import Exporter

PROG = "hub games"
HISTORY_LIMIT = 20
JSONL = "jsonl"


def export_formats() -> dict[str, dict[str, Exporter]]:
    """The formats of the installed games' own (`hub.core.play.game.Game.exports`, e.g. PGN for
    chess), each with the games that offer it and their exporters."""
    from hub.core.commands.plugin import discover

    formats: dict[str, dict[str, Exporter]] = {}
    for plugin in discover().values():
        game = plugin.declaration()  # (a plug-in declared by its class's path included)
        if game is not None:
            for name, exporter in game.exports.items():
                formats.setdefault(name, {})[game.name] = exporter
    return formats


def _games_text(games: Iterable[str]) -> str:
    return "the " + " and ".join(games) + " games"


def _count(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number (0 or more)")
    return int(text)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds")
    return value


def _game_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--game",
        metavar="G",
        help="only the games of G, as hub games names them (default: every game)",
    )


def _player_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--player",
        metavar="P",
        help="only the games of the player named P, or whose identity is P (e.g. "
        "GAME/ai:9), in any case (default: everyone)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="The games recorded in the records database (docs/records.md). "
        "`hub games` alone lists the installed games.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    history = commands.add_parser(
        "history", help="list recorded games, newest first", description="List recorded games."
    )
    _game_option(history)
    _player_option(history)
    history.add_argument(
        "--limit",
        type=_count,
        default=HISTORY_LIMIT,
        metavar="N",
        help=f"the N most recent games; 0 for all (default: {HISTORY_LIMIT})",
    )
    add_db_option(history)
    show = commands.add_parser(
        "show",
        help="replay one game move by move",
        description="Replay a recorded game: its players, settings and result, then each "
        "move (the mover, the time it took) and the position after it.",
    )
    show.add_argument("id", metavar="ID", help="the game's id, or the start of it")
    show.add_argument(
        "--delay",
        type=_seconds,
        default=0.0,
        metavar="SECONDS",
        help="wait this long after each move, to watch it (default: 0, all at once)",
    )
    add_db_option(show)
    formats = export_formats()
    export = commands.add_parser(
        "export",
        help="write games as JSON lines" + "".join(f" or {name.upper()}" for name in formats),
        description="Write recorded games, oldest first (or the games ID ... in that order): "
        "JSON lines (one record per line, every game)"
        + "".join(f" or {name.upper()} ({_games_text(games)})" for name, games in formats.items())
        + ".",
    )
    export.add_argument(
        "ids",
        nargs="*",
        metavar="ID",
        help="only these games, each its id or the start of it, as `hub games show` takes "
        "it (default: every game, or those --game and --player select)",
    )
    _game_option(export)
    _player_option(export)
    export.add_argument(
        "--format",
        choices=(JSONL, *formats),
        default=JSONL,
        help=f"{JSONL}: every game, one JSON record a line"
        + "".join(f"; {name}: {_games_text(games)}" for name, games in formats.items())
        + f" (default: {JSONL})",
    )
    export.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        default=None,
        help="write to FILE (default: standard output)",
    )
    add_db_option(export)
    stats = commands.add_parser(
        "stats",
        help="each player's record and rating",
        description="Each player (by identity: one engine under several names is one "
        "player, shown by its latest name; self-play is one player) with its games, wins, "
        "draws, losses, score and rating (the Elo of `hub games ratings` with its defaults: "
        "one rule for both; docs/records.md), one table per game.",
    )
    _game_option(stats)
    add_db_option(stats)
    ratings = commands.add_parser(
        "ratings",
        help="a rating list (maximum-likelihood Elo) from every recorded game",
        description="A rating list per game from every recorded game of it: each player "
        "(by identity) with its Elo and 95%% margin, fitted by maximum likelihood with a "
        "draw parameter and a first-move advantage (the BayesElo/Ordo model; "
        "docs/records.md); players in groups that never met are listed apart.",
    )
    ratings.add_argument(
        "game", nargs="?", metavar="GAME", help="only the games of GAME (default: every game)"
    )
    ratings.add_argument(
        "--anchor",
        metavar="ID",
        help="give the player with this identity (or display name) the --anchor-elo "
        "rating (default: the mean rating is --anchor-elo)",
    )
    ratings.add_argument(
        "--anchor-elo",
        type=_elo,
        default=0.0,
        metavar="ELO",
        help="the anchor's rating (default: 0)",
    )
    ratings.add_argument(
        "--draw",
        type=_positive_elo,
        default=None,
        metavar="ELO",
        help="the draw parameter in Elo (default: fitted with the ratings)",
    )
    ratings.add_argument(
        "--advantage",
        type=_elo,
        default=None,
        metavar="ELO",
        help="the first-move advantage in Elo (white, South, the first seat), e.g. 0 for "
        "none (default: fitted with the ratings when the games determine it)",
    )
    ratings.add_argument(
        "--prior",
        type=_prior_elo,
        default=PRIOR_ELO,
        metavar="ELO",
        help="the standard deviation of a Gaussian prior on each rating, which keeps a "
        f"player who won every game finite; 0: none, pure maximum likelihood "
        f"(default: {PRIOR_ELO:g})",
    )
    ratings.add_argument(
        "--json", action="store_true", help="one JSON object per game a line (default: a table)"
    )
    add_db_option(ratings)
    return parser


def _elo(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of Elo points")
    return value


def _positive_elo(text: str) -> float:
    value = _elo(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not above 0")
    return value


def _prior_elo(text: str) -> float:
    value = _elo(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is negative")
    return value


RecordsCommand = Callable[[RecordStore, argparse.Namespace, Output, Output], int]
"""One of ``hub games``' commands over the records (core/plugin's `Command` is a program's)."""


def history(store: RecordStore, options: argparse.Namespace, out: Output, err: Output) -> int:
    games = store.games(game=options.game, player=options.player, limit=options.limit or None)
    if not games:
        out.line(f"no games recorded in {store.path}{_filters_text(options)}")
        return 0
    rows = [
        (
            when(summary.ended_at)[:16],
            summary.game,
            " vs ".join(summary.players),
            summary_words(summary),
            summary.termination,
            summary.moves,
            summary.game_id,
        )
        for summary in games
    ]
    for line in table(
        ("ended", "game", "players", "result", "termination", "moves", "id"), rows, "moves"
    ):
        out.line(line)
    return 0


def _one_game(store: RecordStore, game_id: str, command: str, err: Output) -> StoredGame | None:
    """The game whose id is or starts with ``game_id``; None, said on ``err``, if there is
    no such game or several."""
    stored = store.stored(game_id)
    if stored is None:
        candidates = store.ids(game_id, limit=6)
        if len(candidates) > 1:
            more = ", ..." if len(candidates) > 5 else ""
            err.line(
                f"{PROG} {command}: {game_id!r} is the start of several games' ids: "
                f"{', '.join(candidates[:5])}{more}"
            )
        else:
            err.line(f"{PROG} {command}: no game {game_id!r} in {store.path}")
    return stored


def show(store: RecordStore, options: argparse.Namespace, out: Output, err: Output) -> int:
    stored = _one_game(store, options.id, "show", err)
    if stored is None:
        return 1
    for line in header_lines(stored.record, _match_text(stored)):
        out.line(line)
    out.line("")
    steps = replay_lines(stored.record)
    for number, step in enumerate(steps):
        for line in step:
            out.line(line)
        out.flush()
        if out.broken:  # the reader has gone (| head): no one is watching
            break
        if options.delay and number < len(steps) - 2:
            time.sleep(options.delay)
    return 0


def export(store: RecordStore, options: argparse.Namespace, out: Output, err: Output) -> int:
    exporters: dict[str, Exporter] | None = None
    games: Iterable[StoredGame]
    if options.ids and (options.game is not None or options.player is not None):
        err.line(f"{PROG} export: name games by ID or select them with --game/--player, not both")
        return 2
    if options.format != JSONL:
        exporters = export_formats().get(options.format, {})
    if options.ids:
        chosen = [_one_game(store, game_id, "export", err) for game_id in options.ids]
        found = [stored for stored in chosen if stored is not None]
        if len(found) < len(chosen):
            return 1
        if exporters is not None:
            for stored in found:
                if stored.record.game not in exporters:
                    return _not_for(options.format, exporters, stored.record.game, err)
        games = found
    elif exporters is None:
        games = store.records(game=options.game, player=options.player)
    else:
        if options.game is not None and options.game not in exporters:
            return _not_for(options.format, exporters, options.game, err)
        games = _records_of(store, list(exporters), options.player)
    if options.output is None:
        _write_games(games, exporters, _FdWriter(1))
        return 0
    target = pathlib.Path(options.output)
    try:
        with target.open("w", encoding="utf-8") as handle:
            count = _write_games(games, exporters, handle)
    except OSError as exc:
        err.line(f"{PROG} export: cannot write {target}: {exc.strerror or exc}")
        return 1
    err.line(f"{PROG} export: {count} game(s) written to {target}")
    return 0


def _not_for(name: str, exporters: Mapping[str, Exporter], game: str, err: Output) -> int:
    """Say that the format ``name`` is not one of ``game``'s; exit status 2."""
    offered = " and ".join(exporters)
    err.line(
        f"{PROG} export: {name.upper()} is for {offered} games; use --format {JSONL} for {game}"
    )
    return 2


class _FdWriter:
    """``write`` to a file descriptor that may be a pipe whose reader has gone (`head`)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.broken = False

    def write(self, text: str) -> int:
        if not self.broken:
            self.broken = not write_all(self.fd, text.encode("utf-8"))
        return len(text)


def _records_of(
    store: RecordStore, games: Sequence[str], player: str | None
) -> Iterable[StoredGame]:
    """The records of ``games`` (one game: the store's filter; several: every record's)."""
    if len(games) == 1:
        return store.records(game=games[0], player=player)
    return (stored for stored in store.records(player=player) if stored.record.game in games)


def _write_games(
    games: Iterable[StoredGame],
    exporters: dict[str, Exporter] | None,
    sink: TextIO | _FdWriter,
) -> int:
    """Write ``games`` as JSON lines (``exporters`` None) or with their game's exporter."""
    count = 0
    for stored in games:
        if exporters is not None:
            exporter = exporters[stored.record.game]
            sink.write(exporter(stored.record, stored.match_id, stored.index))
        else:
            sink.write(jsonl_line(stored.record) + "\n")
        count += 1
        if isinstance(sink, _FdWriter) and sink.broken:
            break
    return count


def _by_game(store: RecordStore, game: str | None) -> dict[str, list[GameSummary]]:
    """The finished games, by game, oldest first."""
    by_game: dict[str, list[GameSummary]] = {}
    for summary in reversed(store.games(game=game)):
        if summary.termination != Termination.ABORTED.value:
            by_game.setdefault(summary.game, []).append(summary)
    return by_game


def _display_names(games: Sequence[GameSummary]) -> dict[str, list[str]]:
    """Each identity's display names, the latest first (``games`` oldest first: a program
    renamed is shown by its new name); an anonymous client of several seats of one game
    has its seat after its name."""
    seen: dict[str, dict[str, None]] = {}
    for summary in games:
        for identity, shown in zip(summary.identities, summary.players, strict=True):
            name = shown
            if identity.endswith(")") and " (seat " in identity:  # one of several seats
                name += identity[identity.rindex(" (seat ") :]
            names = seen.setdefault(identity, {})
            names.pop(name, None)
            names[name] = None  # (re-inserted: the latest last)
    return {identity: list(reversed(names)) for identity, names in seen.items()}


def stats(store: RecordStore, options: argparse.Namespace, out: Output, err: Output) -> int:
    by_game = _by_game(store, options.game)
    if not by_game:
        out.line(f"no games recorded in {store.path}{_filters_text(options)}")
        return 0
    for number, (game, summaries) in enumerate(sorted(by_game.items())):
        if number:
            out.line("")
        out.line(f"{game}: {len(summaries)} game(s)")
        names = _display_names(summaries)
        rated = fit([(summary.identities, summary.winners) for summary in summaries])
        grouped = rated.groups > 1
        rows: list[tuple[object, ...]] = [
            (
                names[player.identity][0],
                player.games,
                player.wins,
                player.draws,
                player.losses,
                f"{100 * player.score:.1f}%",
                _elo_text(player.rating),
                *((player.group + 1,) if grouped else ()),
                player.identity,
            )
            for player in rated.players
        ]
        rows += [
            (names[alone.identity][0], alone.games, 0, 0, 0, "-", "-",
             *(("-",) if grouped else ()), alone.identity)
            for alone in rated.unrated
        ]  # fmt: skip
        headers = ("player", "games", "W", "D", "L", "score", "Elo",
                   *(("group",) if grouped else ()), "identity")  # fmt: skip
        for line in table(headers, rows, "games W D L score Elo group"):
            out.line("  " + line)
        for line in _notes(rated):
            out.line("  " + line)
    return 0


def _notes(rated: RatingList) -> list[str]:
    """What the list cannot say: groups that never met, games of a player with itself."""
    notes = []
    if rated.groups > 1:
        notes.append(
            f"{rated.groups} groups of players never met one another: Elo compares players "
            "of one group only"
        )
    if rated.self_play:
        notes.append(
            f"{rated.self_play} game(s) of a player against itself: in its games, not in "
            "W/D/L or its rating"
        )
    return notes


def ratings(store: RecordStore, options: argparse.Namespace, out: Output, err: Output) -> int:
    by_game = _by_game(store, options.game)
    if not by_game:
        if options.json:
            return 0
        out.line(f"no games recorded in {store.path}{_filters_text(options)}")
        return 0
    status = 0
    first = True
    for game, summaries in sorted(by_game.items()):
        names = _display_names(summaries)
        anchor = options.anchor
        if anchor is not None and anchor not in names:
            # A display name names the identity it is most used for.
            matching = [identity for identity, used in names.items() if anchor in used]
            anchor = matching[0] if len(matching) == 1 else anchor
        try:
            rated = fit(
                [(summary.identities, summary.winners) for summary in summaries],
                prior=options.prior,
                draw=options.draw,
                advantage=options.advantage,
                anchor=anchor,
                anchor_rating=options.anchor_elo,
            )
        except ValueError as exc:  # RatingError, or an anchor that is not a player here
            what = "cannot rate the games" if isinstance(exc, RatingError) else "no anchor"
            err.line(f"{PROG} ratings: {game}: {what}: {exc}")
            status = 1
            continue
        if options.json:
            out.line(json.dumps(_ratings_json(game, len(summaries), rated, names)))
            continue
        if not first:
            out.line("")
        first = False
        for line in _ratings_lines(game, len(summaries), rated, names):
            out.line(line)
    return status


def rating_list_lines(path: Location, game: str) -> list[str]:
    """The rating list of ``game`` from every game recorded in ``path`` (what ``hub games
    ratings GAME`` prints), for the web view's match page; empty if there is none."""
    from hub.records.store import RecordStore

    try:
        with RecordStore.open(path) as store:
            summaries = _by_game(store, game).get(game, [])
    except database_errors(OSError, ValueError):  # (unreachable, corrupt, a bad anchor)
        return []
    if not summaries:
        return []
    names = _display_names(summaries)
    try:
        rated = fit([(summary.identities, summary.winners) for summary in summaries])
    except ValueError:
        return []
    return _ratings_lines(game, len(summaries), rated, names)


def _elo_text(value: float) -> str:
    return f"{round(value):+d}"


def _advantage_text(rated: RatingList) -> str:
    if rated.advantage_fitted:
        return (
            f"first-move advantage {rated.advantage:.1f} ± {rated.advantage_margin:.1f} Elo "
            "(fitted)"
        )
    if rated.advantage_given:
        return f"first-move advantage {rated.advantage:.1f} Elo (given)"
    return "first-move advantage 0 (not determined by these games' seats)"


def _ratings_lines(
    game: str, count: int, rated: RatingList, names: dict[str, list[str]]
) -> list[str]:
    if rated.draw_margin:
        draw = f"draw parameter {rated.draw:.1f} ± {rated.draw_margin:.1f} Elo (fitted)"
    else:
        draw = f"draw parameter {rated.draw:.1f} Elo" + (" (given)" if rated.draw else "")
    if rated.anchor is not None:
        anchor = f"anchor {rated.anchor} = {rated.anchor_rating:g}"
    else:
        anchor = f"mean rating {rated.anchor_rating:g}"
    if rated.groups > 1:
        anchor += " in each group" if rated.anchor is None else ", other groups' mean"
    lines = [
        f"{game}: {count} game(s), {len(rated.players)} player(s), {draw}, "
        f"{_advantage_text(rated)}, {anchor}"
    ]
    headers = ("rank", "player", "Elo", "±", "games", "score", "identity")
    for group in range(rated.groups):
        players = [player for player in rated.players if player.group == group]
        if rated.groups > 1:
            lines.append(
                f"  group {group + 1} of {rated.groups}: {len(players)} player(s) who never "
                "met the other groups' (their ratings compare within the group only)"
            )
        rows = [
            (
                rank,
                names[player.identity][0],
                _elo_text(player.rating),
                f"{player.margin:.0f}",
                player.games,
                f"{100 * player.score:.1f}%",
                player.identity,
            )
            for rank, player in enumerate(players, 1)
        ]
        lines.extend("  " + line for line in table(headers, rows, "rank Elo ± games score"))
    if rated.unrated:
        alone = ", ".join(
            f"{names[record.identity][0]} ({record.games} game(s))" for record in rated.unrated
        )
        lines.append(f"  not rated (only games against itself): {alone}")
    return lines


def _ratings_json(
    game: str, count: int, rated: RatingList, names: dict[str, list[str]]
) -> dict[str, object]:
    return {
        "game": game,
        "games": count,
        "model": "bayeselo",
        "draw": rated.draw,
        "draw_margin": rated.draw_margin,
        "draw_fitted": bool(rated.draw_margin),
        "advantage": rated.advantage,
        "advantage_margin": rated.advantage_margin,
        "advantage_fitted": rated.advantage_fitted,
        "advantage_given": rated.advantage_given,
        "anchor": rated.anchor,
        "anchor_rating": rated.anchor_rating,
        "prior": rated.prior,
        "margin": "95%",
        "groups": rated.groups,
        "players": [
            {
                "rank": rank,
                "group": player.group,
                "identity": player.identity,
                "name": names[player.identity][0],
                "names": names[player.identity],
                "rating": player.rating,
                "margin": player.margin,
                "games": player.games,
                "wins": player.wins,
                "draws": player.draws,
                "losses": player.losses,
                "score": player.score,
            }
            for rank, player in _ranks(rated)
        ],
        "unrated": [
            {
                "identity": record.identity,
                "name": names[record.identity][0],
                "games": record.games,
            }
            for record in rated.unrated
        ],
    }


def _ranks(rated: RatingList) -> list[tuple[int, Rated]]:
    """Each player with its rank within its group."""
    ranks: dict[int, int] = {}
    result = []
    for player in rated.players:
        ranks[player.group] = ranks.get(player.group, 0) + 1
        result.append((ranks[player.group], player))
    return result


COMMANDS: dict[str, RecordsCommand] = {
    "history": history,
    "show": show,
    "export": export,
    "stats": stats,
    "ratings": ratings,
}


def _filters_text(options: argparse.Namespace) -> str:
    filters = [
        f"{name} {value}"
        for name in ("game", "player")
        if (value := getattr(options, name, None)) is not None
    ]
    return f" ({', '.join(filters)})" if filters else ""


def _match_text(stored: StoredGame) -> str | None:
    if stored.match_id is None:
        return None
    return stored.match_id + ("" if stored.index is None else f", game index {stored.index}")


def main(argv: Sequence[str]) -> int:
    """``hub games COMMAND ...``; returns the exit status."""
    return run(build_parser(), argv, _games)


def _games(options: argparse.Namespace, out: Output, err: Output) -> int:
    path = db_path(options)
    if not exists(path):
        missing = f"no games recorded: {path} does not exist"
        if options.command == "show" or getattr(options, "ids", None):
            err.line(f"{PROG} {options.command}: {missing}")
            return 1
        quiet = options.command == "export" or getattr(options, "json", False)
        (err if quiet else out).line(missing)
        return 0
    try:
        store = RecordStore.open(path)
    except database_errors(OSError) as exc:
        err.line(f"{PROG}: cannot use the records database {path}: {one_line(exc)}")
        return 1
    with store:
        return COMMANDS[options.command](store, options, out, err)
