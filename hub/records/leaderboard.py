"""The leaderboard of a game: the rating list (`hub.records.elo.fit`, the one rating code)
of its recorded games between players who are someone, and a player's page.

**Who is rated.** A game counts when every seat is a registered name (``bot:NAME``,
``person:NAME``: hub.records.identities) or a built-in player (``GAME/ai:N``,
``GAME/random``). A game with a guest (a name that is not registered: ``remote:NAME``, a
person who picked no name, ``person:browser``) is recorded but rated for no one: a guest's
name is anyone's, so its results say nothing about a lasting player, and a registered
player's rating moves only by games against someone. A name that is removed leaves the
leaderboard (its games stay recorded; registered again, they count again).

The newest `MAX_GAMES` games of a game are fitted (a bound on a page's work); a
`LeaderboardReader` reads them off the event loop and keeps the last board of each game until
the database has another game or name.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

import attrs
import trio

from hub.records.database import Location, database_errors, location
from hub.records.elo import RatingError, fit
from hub.records.identities import IdentityStore, Registered
from hub.records.store import GameSummary, RecordStore

MAX_GAMES = 20_000
"""The newest games of a game a leaderboard is fitted on."""
RECENT = 20
"""The games a player's page lists."""
_BUILT_IN = re.compile(r"[^:/]+/(?:ai|random|mcts)(?::.*)?")
T = TypeVar("T")


def is_built_in(identity: str) -> bool:
    """A built-in player's identity (``connect4/ai:3``, ``kalah/random``)."""
    return _BUILT_IN.fullmatch(identity) is not None


def shown_name(identity: str) -> str:
    """The name a leaderboard shows: a registered player's name, a built-in's spec
    (``ai:3``)."""
    if is_built_in(identity):
        return identity.split("/", 1)[1]
    return identity.split(":", 1)[1] if ":" in identity else identity


@attrs.frozen
class RatedPlayer:
    """One player of a leaderboard."""

    identity: str
    name: str
    registered: bool
    """A registered name (it has a player's page), not a built-in player."""
    rating: float
    margin: float
    wins: int
    draws: int
    losses: int
    games: int
    group: int


@attrs.frozen
class Leaderboard:
    """A game's leaderboard: its rows (best first, by group), the games fitted and those
    left out because a guest played."""

    game: str
    rows: tuple[RatedPlayer, ...] = ()
    rated_games: int = 0
    guest_games: int = 0
    groups: int = 1

    def row(self, identity: str) -> RatedPlayer | None:
        wanted = identity.casefold()
        return next((row for row in self.rows if row.identity.casefold() == wanted), None)


def board_of(game: str, summaries: Iterable[GameSummary], registered: Iterable[str]) -> Leaderboard:
    """The leaderboard of ``game`` from its games' ``summaries`` (module doc), the
    identities of the ``registered`` names given (case-insensitive)."""
    known = {identity.casefold(): identity for identity in registered}
    rated: list[tuple[list[str], Sequence[int]]] = []
    guests = 0
    for summary in summaries:
        seats = []
        for identity in summary.identities:
            if is_built_in(identity):
                seats.append(identity)
            elif identity.casefold() in known:
                seats.append(known[identity.casefold()])  # (as registered: one spelling)
            else:
                break
        else:
            rated.append((seats, summary.winners))
            continue
        guests += 1
    if not rated:
        return Leaderboard(game, guest_games=guests)
    try:
        listed = fit(rated)
    except RatingError:  # (only with no prior; kept for safety)
        return Leaderboard(game, guest_games=guests)
    rows = tuple(
        RatedPlayer(
            player.identity,
            shown_name(player.identity),
            not is_built_in(player.identity),
            player.rating,
            player.margin,
            player.wins,
            player.draws,
            player.losses,
            player.games,
            player.group,
        )
        for player in listed.players
    )
    return Leaderboard(game, rows, len(rated), guests, listed.groups)


@attrs.frozen
class PlayerPage:
    """A registered player: its row in each game it played (None: no rated game there) and
    its recent games, newest first."""

    player: Registered
    boards: tuple[tuple[str, RatedPlayer | None], ...]
    recent: tuple[GameSummary, ...]


def _registered_identities(names: IdentityStore) -> list[str]:
    return [registered.identity for registered in names.names()]


def _board(records: RecordStore, names: IdentityStore, game: str) -> Leaderboard:
    summaries = records.games(game=game, limit=MAX_GAMES)
    return board_of(game, summaries, _registered_identities(names))


class LeaderboardReader:
    """Boards and player pages from the database at ``path``, each read in a worker thread
    (at most ``limit`` at once) with connections of its own."""

    def __init__(self, path: str | os.PathLike[str] | Location, *, limit: int = 2) -> None:
        self.path = location(path)
        self._limiter = trio.CapacityLimiter(limit)
        self._boards: dict[str, tuple[tuple[int, int], Leaderboard]] = {}

    async def _ask(self, question: Callable[[RecordStore, IdentityStore], T]) -> T:
        def work() -> T:
            with RecordStore.open(self.path) as records, IdentityStore.open(self.path) as names:
                return question(records, names)

        return await trio.to_thread.run_sync(work, limiter=self._limiter)

    def _cached(self, records: RecordStore, names: IdentityStore, game: str) -> Leaderboard:
        key = (records.count(), len(names.names()))
        cached = self._boards.get(game)
        if cached is not None and cached[0] == key:
            return cached[1]
        board = _board(records, names, game)
        self._boards[game] = (key, board)
        return board

    async def board(self, game: str) -> Leaderboard:
        """``game``'s leaderboard (an empty one if the database cannot be read)."""
        try:
            return await self._ask(lambda records, names: self._cached(records, names, game))
        except database_errors(OSError):
            return Leaderboard(game)

    async def player(self, name: str, games: Sequence[str] = ()) -> PlayerPage | None:
        """The page of the registered ``name`` (None: not registered), with its row in
        each of ``games`` (default: the games of its recent games)."""

        def ask(records: RecordStore, names: IdentityStore) -> PlayerPage | None:
            found = names.find(name)
            if found is None:
                return None
            identity = found.identity.casefold()
            recent = tuple(
                summary
                for summary in records.games(player=found.identity, limit=RECENT * 2)
                if identity in (seat.casefold() for seat in summary.identities)
            )[:RECENT]
            shown = list(games) or list(dict.fromkeys(summary.game for summary in recent))
            boards = tuple(
                (game, self._cached(records, names, game).row(found.identity)) for game in shown
            )
            return PlayerPage(found, boards, recent)

        try:
            return await self._ask(ask)
        except database_errors(OSError):
            return None
