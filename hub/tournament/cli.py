"""``hub match GAME PLAYER PLAYER [...] [options]``: a match between players of any game.

Exit status: 0 when the match ran (whatever its games' results, aborted games included),
1 when it could not go on (the database failed), 2 for bad usage (one line on stderr),
128 + the signal's number when SIGINT (130) or SIGTERM (143) stopped it; the results so far
are printed in every case where games were played.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

import attrs
import trio

from hub.core.commands.running import interrupted_status
from hub.core.io.output import Output
from hub.core.model.bus import EventBus
from hub.core.model.events import GameEnded, GameRecord
from hub.core.play.kit import RECORD_SEEDS, TournamentKit
from hub.declared.adjudication import SETTING as ADJUDICATION
from hub.declared.adjudication import add_adjudication_options, adjudication_of
from hub.tournament.elo import Sprt, parse_sprt
from hub.tournament.formats import FORMATS, GAUNTLET, KNOCKOUT, ROUND_ROBIN, SWISS, TABLES, Plan
from hub.tournament.progress import (
    ProgressLine,
    format_table,
    history_json,
    notes,
    report_json,
    summary_line,
)
from hub.tournament.runner import (
    Backend,
    Finished,
    InProcess,
    MatchReport,
    TournamentRunner,
    WorkerPool,
    abandon_workers,
    start_workers,
)
from hub.tournament.schedule import (
    Field,
    Schedule,
    Scheduled,
    display_names,
    make_schedule,
    new_match_id,
    rounds_for,
    seed_of,
)
from hub.tournament.standings import Crosstable
from hub.tournament.tally import Tally
from hub.tournament.worker import KitError, KitLoadFailed, describe_error, load_kit
from hub.web.options import add_web_option

if TYPE_CHECKING:
    from hub.records import RecordStore
    from hub.records.database import Location
    from hub.tournament.ray_backend import RayBackend
    from hub.web.limits import AllowedHosts
    from hub.web.server import WebServer

PROG = "hub match"
USAGE = f"{PROG} GAME PLAYER PLAYER [PLAYER ...] [options]"
DESCRIPTION = """\
Play a match between players of GAME (a game's name from `hub games`, or module:name of a
match kit): every round starts from a distinct opening of the game, played with the seats
rotated (colours or first move swapped for two players); results are shown live and as a
table (game pairs, time losses, crashes, how many games were distinct), and every finished
game is recorded. Players are specs of the game (e.g. ai:4, a program name or path, stockfish).
With more players than the game seats, or with --format, a tournament: a round-robin (or
tables for games of more seats), gauntlet, Swiss or knockout, with a crosstable and each
player's Elo from the tournament's games."""


class MatchUsageError(Exception):
    """Bad usage of ``hub match``: the bare message, which `usage_error` prints with its hint,
    exit status 2 (`hub.core.commands.usage.UsageError` carries its hint already)."""


class Failure(Exception):
    """The match cannot go on (the database cannot be opened): exit status 1."""


class WebFailed(Exception):
    """``--web`` could not listen (already said on stderr): exit status 1."""


class MatchParser(argparse.ArgumentParser):
    """``hub match``'s parser: argparse's help, errors as `MatchUsageError`."""

    def error(self, message: str) -> NoReturn:
        raise MatchUsageError(message)


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def positive(text: str) -> int:
    if (value := _integer(text)) < 1:
        raise argparse.ArgumentTypeError(f"{text} is not at least 1")
    return value


def whole(text: str) -> int:
    if (value := _integer(text)) < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative")
    return value


FIXED = "fixed"
"""``--openings fixed``: no openings, every game from the game's usual start."""


def openings_choice(text: str) -> int | str:
    if text == FIXED:
        return FIXED
    try:
        return positive(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is neither a number of openings (1 or more) nor {FIXED!r}"
        ) from None


def build_parser(kit: TournamentKit | None) -> MatchParser:
    parser = MatchParser(prog=PROG, usage=USAGE, description=DESCRIPTION)
    parser.add_argument("game", metavar="GAME", help="the game (see `hub games`)")
    parser.add_argument("players", metavar="PLAYER", nargs="+", help="the players, in order")
    group = parser.add_argument_group("match")
    group.add_argument(
        "--games",
        type=positive,
        metavar="N",
        help="games of a match of one table (default: one per seat order, i.e. as many as "
        "players; a tournament's follow from --format and --rounds)",
    )
    group.add_argument(
        "--concurrency",
        type=positive,
        default=None,
        metavar="K",
        help="games at a time (default 1, in this process; K > 1: K worker processes; "
        "with --cluster: the cluster's CPUs)",
    )
    group.add_argument(
        "--format",
        choices=FORMATS,
        metavar="FORMAT",
        help="a tournament: round-robin (every pair meets), gauntlet (the first --gauntlet-seeds "
        "players against the others), swiss (pairings by score, no pair twice), knockout "
        "(winners go on), tables (games of more seats: tables drawn so that everyone meets "
        "everyone about equally) (default: one table of every player when the game seats "
        "them all, else round-robin for a two-player game and tables for others)",
    )
    group.add_argument(
        "--rounds",
        type=positive,
        metavar="R",
        help="a tournament's rounds: game pairs per pair of players (round-robin, gauntlet), "
        "Swiss rounds (at most half the players), game pairs per knockout match, stages of "
        "tables (default: 1; Swiss: log2 of the players, rounded up; tables: enough for "
        "everyone to be able to meet everyone, with everyone at as many tables)",
    )
    group.add_argument(
        "--gauntlet-seeds",
        type=positive,
        metavar="N",
        help="gauntlet: how many of the first players play all the others (default 1)",
    )
    group.add_argument(
        "--table",
        type=positive,
        metavar="N",
        help="tables: players at each table (default: the most the game seats)",
    )
    group.add_argument(
        "--seed",
        type=whole,
        metavar="S",
        help="seed of the openings and of every game's built-in players and chance, so a "
        "match replays (default: a secret one, kept in the database for --resume)",
    )
    group.add_argument(
        "--duplicate",
        action="store_true",
        help="deal the two games of a pair alike (duplicate bridge) in a game of hidden "
        "cards or chance (default: every game is dealt afresh)",
    )
    group.add_argument(
        "--openings",
        type=openings_choice,
        metavar="N|fixed",
        help="N: that many distinct openings of the game, each played with the seats "
        f"rotated, reused in turn; {FIXED}: every game from the game's usual start, so "
        "deterministic players repeat the same games (default: a new opening for every round)",
    )
    group.add_argument(
        "--sprt",
        metavar="SPEC",
        help="stop when a two-player SPRT decides: elo0=0,elo1=5,alpha=0.05,beta=0.05,"
        "model=normalized (any subset; model: normalized (elo0 and elo1 in nElo, as "
        "fastchess and OpenBench), logistic or bayesian; default: no SPRT)",
    )
    group.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object instead of the table (default: the table)",
    )
    group.add_argument(
        "--cluster",
        metavar="ray[://ADDRESS]",
        help="play the games as Ray tasks: 'ray' starts a local Ray, ray://HEAD:10001 joins "
        "a cluster (needs pip install 'hub[cluster]'; default: no cluster)",
    )
    group.add_argument(
        "--resume",
        metavar="MATCH_ID",
        help="continue that match: play only the games not yet recorded (give the same "
        "arguments; default: a new match)",
    )
    add_web_option(group)
    from hub.records import add_record_options

    add_record_options(parser)
    if kit is not None:
        kit.add_options(parser)
    add_adjudication_options(parser)
    return parser


def kept_seed(path: Location | None, match_id: str) -> int:
    """The seed of the match ``--resume`` continues: the one kept in the database, or for
    a match recorded before seeds were kept (or a database that cannot be read now: opening
    it again says why), the seed such a match took from its id (`seed_of`)."""
    from hub.records.database import exists

    if path is not None and exists(path):
        from hub.records import RecordStore

        with contextlib.suppress(Exception), RecordStore.open(path) as store:
            kept = store.match_seed(match_id)
            if kept is not None:
                return kept
    return seed_of(match_id)


def draw_openings(
    kit: TournamentKit, settings: Mapping[str, Any], chosen: int | str | None, count: int,
    seed: int,
) -> list[Any]:  # fmt: skip
    """The openings of a match: ``count`` of them (``--openings N``: N, reused in turn);
    ``--openings fixed``: none, or a game's deals without opening plies (a kit's
    ``fixed_openings``, so a card game is not dealt alike every game)."""
    if chosen == FIXED:
        fixed = getattr(kit, "fixed_openings", None)
        return [] if fixed is None else list(fixed(settings, count, seed))
    return kit.openings(settings, int(chosen or count), seed)


MAX_CHECKS = 8
"""Players checked at once (`check_players`)."""


def check_players(
    kit: TournamentKit, players: Sequence[str], settings: Mapping[str, Any]
) -> list[str | None]:
    """`TournamentKit.check_player` of each player, in their order: each distinct spec once,
    all at the same time (a chess engine's check starts it, about 0.1-0.3 s of its start-up
    each; two engines are checked in the time of one, a player given twice only once)."""
    distinct = list(dict.fromkeys(players))
    if len(distinct) == 1:
        found = {distinct[0]: kit.check_player(distinct[0], settings)}
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(len(distinct), MAX_CHECKS)) as pool:
            checked = pool.map(lambda spec: kit.check_player(spec, settings), distinct)
            found = dict(zip(distinct, checked, strict=True))
    return [found[player] for player in players]


class Setup:
    """Everything decided before the first game: the schedule, backend, store and tally."""

    def __init__(self, options: argparse.Namespace, kit: TournamentKit) -> None:
        self.options = options
        self.kit = kit
        self.store: RecordStore | None = None
        self.ray: RayBackend | None = None
        players: list[str] = options.players
        self.plan = plan_of(options, kit.seats)
        try:
            self.settings: dict[str, Any] = kit.settings(options)
            adjudication = adjudication_of(options)
        except ValueError as exc:
            raise MatchUsageError(str(exc)) from None
        if adjudication.active:
            self.settings[ADJUDICATION] = adjudication.to_json()
        for problem in check_players(kit, players, self.settings):
            if problem is not None:
                raise MatchUsageError(problem)
        self.sprt: Sprt | None = None
        if options.sprt is not None:
            if len(players) != 2 or self.plan is not None:
                raise MatchUsageError("--sprt needs exactly two players (and no --format)")
            try:
                self.sprt = parse_sprt(options.sprt)
            except ValueError as exc:
                raise MatchUsageError(f"--sprt: {exc}") from None
        self.address: str | None = None
        if options.cluster is not None:
            from hub.tournament.ray_backend import parse_cluster

            try:
                self.address = parse_cluster(options.cluster)
            except ValueError as exc:
                raise MatchUsageError(str(exc)) from None
        from hub.records import record_path

        self.path = record_path(options)
        if options.resume is not None and self.path is None:
            raise MatchUsageError("--resume needs the database (drop --no-record)")
        self.match_id: str = options.resume or new_match_id()
        if options.seed is not None:
            seed = options.seed
        elif options.resume is not None:
            seed = kept_seed(self.path, self.match_id)
        else:  # secret: not from the match id, which every game id shows
            seed = secrets.randbelow(2**31)
        self.seed: int = seed
        self.crosstable = Crosstable(display_names(players))
        self.points: dict[int, dict[int, float]] = {}
        deals = getattr(kit, "deals", None)
        deal = bool(deals is not None and deals()) and not options.duplicate
        if self.plan is not None:
            most = self.plan.most_tables() * (max(kit.seats) if deal else 1)
            openings = draw_openings(kit, self.settings, options.openings, most, seed)
            self.field: Field | None = Field(
                attrs.evolve(self.plan, seed=seed),
                self.match_id,
                options.game,
                tuple(players),
                self.settings,
                seed,
                tuple(openings),
                deal,
            )
            self.schedule: Schedule = self.field.schedule({})
        else:
            self.field = None
            games = options.games or len(players)
            rounds = rounds_for(games, len(players))
            count = games if deal else rounds
            openings = draw_openings(kit, self.settings, options.openings, count, seed)
            self.schedule = make_schedule(
                match_id=self.match_id,
                game=options.game,
                players=players,
                settings=self.settings,
                games=games,
                seed=seed,
                openings=openings,
                deal=deal,
            )
        self.tally = Tally(display_names(players))
        self.skip: set[int] = set()

    def open_store(self, err: Output) -> None:
        """Open the database and, for --resume, take the games already recorded."""
        if self.path is None:
            return
        from hub.records import RecordStore

        try:
            self.store = RecordStore.open(self.path)
            self.store.keep_match_seed(self.match_id, self.seed)
        except Exception as exc:
            from hub.records.database import one_line

            raise Failure(f"cannot open the database {self.path}: {one_line(exc)}") from exc
        if self.options.resume is None:
            return
        summaries = self.store.games(match_id=self.match_id)
        if not summaries:
            raise MatchUsageError(
                f"--resume {self.match_id}: no game of that match is recorded in {self.path} "
                "(check the id with `hub games history`, or start a new match without --resume)"
            )
        from hub.tournament.runner import outcome_of

        records: dict[int, GameRecord] = {}
        for summary in summaries:
            record = self.store.get(summary.game_id)
            if record is None or summary.index is None:
                raise MatchUsageError(
                    f"match {self.match_id} has a game without its place in the match: "
                    "resume with the arguments it was started with"
                )
            records[summary.index] = record
        taken: set[int] = set()
        while True:  # a tournament's later stages follow from the results of earlier ones
            if self.field is not None:
                self.schedule = self.field.schedule(self.points)
            scheduled = {game.index: game for game in self.schedule.games}
            new = sorted(index for index in records.keys() - taken if index in scheduled)
            if not new:
                break
            for index in new:
                problem = resume_difference(scheduled[index], records[index])
                if problem is not None:
                    raise MatchUsageError(f"--resume {self.match_id}: {problem}")
                outcome = outcome_of(scheduled[index], records[index])
                self.tally.add(outcome)
                if not outcome.aborted:
                    self.points[index] = outcome.points()
                self.crosstable.add(outcome, records[index].game_id)
                taken.add(index)
            if self.field is None:
                break
        if records.keys() - taken:
            index = min(records.keys() - taken)
            raise MatchUsageError(
                f"match {self.match_id} has game {index}, which these arguments do not "
                "schedule: resume with the arguments it was started with"
            )
        self.skip = self.store.finished_indices(self.match_id)

    def backend(self, early: list[subprocess.Popen[bytes]] | None = None) -> Backend:
        """Where the games are played; ``early``: workers already started for a
        `WorkerPool` to adopt (`start_workers`)."""
        concurrency = self.options.concurrency
        if self.options.cluster is not None:
            from hub.tournament.ray_backend import RayBackend

            self.ray = RayBackend(self.options.game, self.address, slots=concurrency or 0)
            return self.ray
        if concurrency is not None and concurrency > 1:
            return WorkerPool(self.options.game, concurrency, early=[] if early is None else early)
        return InProcess(self.kit)

    def close(self) -> None:
        if self.ray is not None:
            self.ray.stop()
        if self.store is not None:
            self.store.close()


def tables_rounds(players: int, table: int) -> int:
    """The default stages of ``tables``: the fewest in which everyone could meet everyone
    (``(players - 1) / (table - 1)``, rounded up), made a multiple of the stages after which
    everyone has played equally often (when some sit out each stage)."""
    least = max(1, math.ceil((players - 1) / max(1, table - 1)))
    per_table = (players // table) * table
    cycle = players // math.gcd(players, per_table)
    return math.ceil(least / cycle) * cycle


def plan_of(options: argparse.Namespace, seats: tuple[int, int]) -> Plan | None:
    """The tournament ``options`` ask for, or None for a match of one table (every player in
    every game: the players fit the game's seats and no --format is given)."""
    count = len(options.players)
    low, high = seats
    fmt: str | None = options.format
    given = (("--rounds", options.rounds), ("--gauntlet-seeds", options.gauntlet_seeds),
             ("--table", options.table))  # fmt: skip
    tournament_only = [flag for flag, value in given if value is not None]
    if fmt is None and low <= count <= high:
        if tournament_only:
            raise MatchUsageError(f"{tournament_only[0]} is for a tournament (see --format)")
        return None
    if fmt is None:
        if count < low:
            seats_text = f"{low}" if low == high else f"{low} to {high}"
            raise MatchUsageError(f"{options.game} takes {seats_text} players, not {count}")
        fmt = TABLES if high > 2 else ROUND_ROBIN
    if options.games is not None:
        raise MatchUsageError("--games is for a match of one table; a tournament's games follow "
                         "from its format and --rounds")  # fmt: skip
    if options.gauntlet_seeds is not None and fmt != GAUNTLET:
        raise MatchUsageError("--gauntlet-seeds is for --format gauntlet")
    if options.table is not None and fmt != TABLES:
        raise MatchUsageError("--table is for --format tables")
    table = options.table or (high if fmt == TABLES else 2)
    if not low <= table <= high:
        seats_text = f"{low}" if low == high else f"{low} to {high}"
        raise MatchUsageError(f"{options.game} seats {seats_text} players, not tables of {table}")
    rounds = options.rounds
    if rounds is None:
        if fmt == SWISS:
            rounds = max(1, min(count // 2, math.ceil(math.log2(max(count, 1)))))
        elif fmt == TABLES:
            rounds = tables_rounds(count, table)
        else:
            rounds = 1
    try:
        return Plan(fmt, count, rounds=rounds, seeds=options.gauntlet_seeds or 1, table=table)
    except ValueError as exc:
        raise MatchUsageError(str(exc)) from None


def _plain(value: Any) -> Any:
    """``value`` as JSON would give it back (tuples as lists), to compare with a record."""
    return json.loads(json.dumps(value, sort_keys=True, default=str))


def _short(value: Any, limit: int = 60) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def resume_difference(scheduled: Scheduled, record: GameRecord) -> str | None:
    """What differs between a recorded game of the match and the game these arguments
    schedule in its place (settings, players, opening), or None if nothing does."""
    index = scheduled.index
    spec = scheduled.spec
    recorded = {
        key: value for key, value in record.settings.items() if key not in ("opening", RECORD_SEEDS)
    }
    wanted = _plain(spec.settings)
    recorded = _plain(recorded)
    changed = [
        f"{key} {_short(recorded.get(key))}, not {_short(wanted.get(key))}"
        for key in sorted(set(recorded) | set(wanted))
        if recorded.get(key) != wanted.get(key)
    ]
    if changed:
        return (
            f"the match was played with {'; '.join(changed)}: give the settings it was started with"
        )
    specs = tuple(player.spec or player.name for player in record.players)
    if specs != spec.players:
        return (
            f"game {index} was played by {', '.join(specs)}, not {', '.join(spec.players)}: "
            "give the players the match was started with, in the same order"
        )
    if "opening" in record.settings and _plain(record.settings["opening"]) != _plain(spec.opening):
        return (
            f"game {index} started from the opening {_short(record.settings['opening'])}, not "
            f"{_short(spec.opening)}: give the openings the match was started with (the same "
            "--openings, --seed and opening source)"
        )
    return None


async def play(
    runner: TournamentRunner,
    progress: ProgressLine,
    web: WebView | None = None,
    finish: Callable[[], None] | None = None,
) -> int | None:
    """Run the match until it ends or a signal stops it; the signal's number, if any.
    With a web view, ``finish`` (the table) is called when the match is over, and the view
    stays up until a signal (docs/web.md: a printed URL stays useful)."""
    got: list[int] = []
    failed = False
    over = False
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:
            if web is not None and not await web.start(nursery):
                failed = True
                nursery.cancel_scope.cancel()

            async def watch() -> None:
                async for signum in signals:
                    got.append(signum)
                    nursery.cancel_scope.cancel()
                    return

            async def tick() -> None:
                while True:
                    await trio.sleep(1.0)
                    progress.update(runner.report)

            nursery.start_soon(watch)
            nursery.start_soon(tick)
            await runner.run()
            over = True
            if web is not None and web.server is not None and finish is not None:
                finish()
                web.err.line(
                    f"{PROG}: the match is over; its web view stays up at "
                    f"{web.server.url('/match')} until Ctrl-C"
                )
                web.err.flush()
                await trio.sleep_forever()  # until `watch` sees the signal
            nursery.cancel_scope.cancel()
    if failed:
        raise WebFailed
    if got:
        if not over:  # (a signal after the match only closes its web view)
            runner.report.stopped = "interrupted"
        return got[0]
    return None


@attrs.define
class WebView:
    """``--web``: the live web view of the match's games (hub.web), and of the games the
    records store already has. Games played in this process are followed move by move;
    those of workers or a cluster (which publish no events here) appear as they finish."""

    address: tuple[str, int]
    events: EventBus
    records: Location | None
    err: Output
    report: Callable[[], MatchReport] | None = None
    server: WebServer | None = None
    allowed_hosts: AllowedHosts | None = None
    """``--allowed-hosts`` (None: the address and the loopback names)."""
    _ratings: tuple[int, list[str]] | None = None

    def text(self) -> str:
        """The standings as the terminal's table, then the rating list of every recorded
        game of this game (``hub games ratings``), when games are recorded."""
        if self.report is None:
            return ""
        table = format_table(self.report()).rstrip("\n")
        lines = self.ratings()
        if not lines:
            return table
        return (
            table + "\n\nRatings from every recorded game (hub games ratings):\n" + "\n".join(lines)
        )

    def ratings(self) -> list[str]:
        """The rating list of every recorded game of this game, computed again only when a
        game has ended."""
        if self.report is None or self.records is None:
            return []
        report = self.report()
        done = report.done
        if self._ratings is None or self._ratings[0] != done or not self._ratings[1]:
            from hub.records.cli import rating_list_lines

            # (not kept while empty: the database may be busy with the last game's write)
            lines = rating_list_lines(self.records, report.schedule.game)
            self._ratings = (done, lines)
        return self._ratings[1]

    def json(self) -> dict[str, Any]:
        """``--json``'s object for the page (`hub.web.standings`), with the table's first
        line (``summary``), the lines under it (``notes``), the history of the standings
        (the chart) and the rating list."""
        if self.report is None:
            return {}
        report = self.report()
        data = report_json(report)
        if report.finished_at is None:
            # the match's seed gives every opening (a deal) and seed of the games to come
            data.pop("seed", None)
        return {
            **data,
            **history_json(report),
            "summary": summary_line(report, running=report.finished_at is None),
            "notes": notes(report),
            "ratings": self.ratings(),
        }

    @classmethod
    def of(cls, setup: Setup, backend: Backend, err: Output) -> WebView | None:
        if setup.options.web is None:
            return None
        events = backend.events if isinstance(backend, InProcess) else EventBus()
        view = cls(setup.options.web, events, setup.path, err)
        view.allowed_hosts = setup.options.allowed_hosts
        return view

    def finished(self, finished: Finished) -> None:
        """A game that came back from a worker: show its record."""
        if finished.record is not None:
            self.events.publish(GameEnded(finished.record.game_id, finished.record, time.time()))

    async def start(self, nursery: trio.Nursery) -> bool:
        """Serve in ``nursery`` and print the URL on stderr; False (said) if it cannot."""
        from hub.web.records import RecordsReader
        from hub.web.server import start_web

        records = None if self.records is None else RecordsReader.at(self.records)
        self.server = await start_web(
            nursery,
            self.events,
            self.address,
            records=records,
            err=self.err,
            prog=PROG,
            standings=self if self.report is not None else None,
            allowed_hosts=self.allowed_hosts,
        )
        return self.server is not None


def usage_error(err: Output, message: str) -> int:
    err.line(f"{PROG}: {message} (see {PROG} --help)")
    err.flush()
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    out, err = Output(1), Output(2)
    try:
        return _main(args, out, err)
    except MatchUsageError as exc:
        return usage_error(err, str(exc))
    except Failure as exc:
        err.line(f"{PROG}: {exc}")
        err.flush()
        return 1
    except KeyboardInterrupt:  # before or after the match's own signal handling (play)
        err.flush()
        return interrupted_status()


def _main(args: list[str], out: Output, err: Output) -> int:
    # The workers start first, so that their start-up (Python, the game's modules) overlaps
    # ours and the players' checks; the parser corrects their number (`early_workers`).
    early: list[subprocess.Popen[bytes]] = []
    try:
        return _match(args, out, err, early)
    finally:
        abandon_workers(early)


def _match(args: list[str], out: Output, err: Output, early: list[subprocess.Popen[bytes]]) -> int:
    kit: TournamentKit | None = None
    if args and not args[0].startswith("-"):
        early += start_workers(args[0], workers_asked(args))
        try:
            kit = load_kit(args[0])
        except KitLoadFailed as exc:
            raise Failure(str(exc)) from None
        except KitError as exc:
            raise MatchUsageError(str(exc)) from None
    elif not {"-h", "--help"} & set(args):
        raise MatchUsageError("name a game (see `hub games`) and its players")
    parser = build_parser(kit)
    try:
        options = parser.parse_args(args)
    except SystemExit as exit:  # --help
        return int(exit.code or 0)
    assert kit is not None
    wanted = early_workers(options)
    abandon_workers(early[wanted:])
    del early[wanted:]
    early += start_workers(options.game, wanted - len(early))
    setup = Setup(options, kit)
    try:
        setup.open_store(err)
        backend = setup.backend(early)
        if setup.ray is not None:
            start_ray(setup.ray)
        return run_tournament(setup, backend, out, err)
    finally:
        setup.close()


def workers_asked(args: Sequence[str]) -> int:
    """The worker processes a command line asks for (``--concurrency K``, K > 1, without
    ``--cluster`` or ``--help``), read before its parser exists (building that needs the
    game's plug-in); 0 when it does not say so plainly (an abbreviated option: the workers
    then start after parsing)."""
    count = 0
    for index, arg in enumerate(args):
        if arg == "--":
            break
        if arg in ("-h", "--help") or arg.startswith("--cluster"):
            return 0
        if arg == "--concurrency" and index + 1 < len(args):
            value = args[index + 1]
        elif arg.startswith("--concurrency="):
            value = arg.partition("=")[2]
        else:
            continue
        try:
            count = int(value)
        except ValueError:
            return 0
    return count if count > 1 else 0


def early_workers(options: argparse.Namespace) -> int:
    """How many worker processes the match wants before its checks (`start_workers`): one
    per slot of ``--concurrency`` K > 1 (never more than ``--games``), none for Ray or in
    process."""
    concurrency: int | None = options.concurrency
    if options.cluster is not None or concurrency is None or concurrency < 2:
        return 0
    games: int | None = getattr(options, "games", None)
    return concurrency if games is None else max(0, min(concurrency, games))


def start_ray(backend: RayBackend) -> None:
    try:
        backend.start()
    except ImportError as exc:
        raise Failure(f"--cluster needs Ray: pip install 'hub[cluster]' ({exc})") from exc
    except Exception as exc:
        where = backend.address or "a local Ray"
        raise Failure(f"cannot start or join {where}: {describe_error(exc)}") from exc


def run_tournament(setup: Setup, backend: Backend, out: Output, err: Output) -> int:
    schedule = setup.schedule
    names = " vs ".join(setup.tally.names)
    left = len(schedule) - len(setup.skip)
    if schedule.field is not None:
        plan = schedule.field.plan
        names = f"a {plan.format} of {plan.players} players ({', '.join(setup.tally.names)})"
        if plan.format in (SWISS, KNOCKOUT):
            names += ", later stages drawn from the results"
    err.line(
        f"{PROG}: match {schedule.match_id}: {schedule.game}, {names}, {left} of "
        f"{len(schedule)} games to play on {backend.name} (seed {schedule.seed}); "
        f"resume with --resume {schedule.match_id}"
    )
    err.flush()
    web = WebView.of(setup, backend, err)
    progress = ProgressLine(2)
    runner = TournamentRunner(
        schedule,
        backend,
        skip=setup.skip,
        recorder=setup.store,
        tally=setup.tally,
        sprt=setup.sprt,
        crosstable=setup.crosstable,
        points=setup.points,
        on_update=progress.update,
        on_game=None if web is None or isinstance(backend, InProcess) else web.finished,
    )
    printed: list[bool] = []

    def finish() -> None:
        if printed:
            return
        printed.append(True)
        progress.close()
        report = runner.report
        if setup.options.json:
            out.line(json.dumps(report_json(report)))
        else:
            out.line(format_table(report).rstrip("\n"))
        out.flush()

    if web is not None:
        web.report = lambda: runner.report
    try:
        signum = trio.run(play, runner, progress, web, finish)
    except WebFailed:
        return 1
    finish()
    report: MatchReport = runner.report
    if signum is not None:
        return 128 + signum
    return 1 if report.stopped == "error" else 0


if __name__ == "__main__":
    sys.exit(main())
