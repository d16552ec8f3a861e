"""The game declaration: one object from which hub derives every verb of a game.

A game subclasses `Game`. Its **required core** is small:

* **settings** as `Option`s with defaults (``Game(settings)`` validates them; an instance is
  the game for one set of settings);
* **rules**: `start` (the first state, from a seeded ``random.Random`` for games that deal
  or lay out at random), `to_move` (None exactly when the game is over), `legal_moves`,
  `apply` (raise `hub.core.model.referee.IllegalMove`), `outcome` (None exactly while a seat is
  to move), `forfeit` and `seats`. A turn of several moves by one player (a capture that
  moves again) is `to_move` naming the same seat again;
* **notation**: `move_text` (one string) and `parse_move` (raise `BadMove` for text that is
  not a move at all; the default finds the move among the legal, then the candidate,
  moves by its text, so most games write only `move_text`);
* **views**: `view(state, seat)` is a JSON value; ``seat=None`` is a spectator (and the
  records and the web view, which show the spectator's view); `seat_name(seat, view)` is
  how people are told of a seat.

Everything else is an **optional facet**, a typed object the game sets as a class attribute
when it has one (`Pictures`, `Ai`, `Hidden`, `Programs`, `MatchSetup`, `Series`,
`AgreedDraws`, `Search`, and chance's and simultaneous moves,
`hub.core.play.chance.Chance` and `hub.core.play.chance.Simultaneous`; see docs/decisions.md, "One
game object"). The match loop (`hub.core.play.match.Match`) takes the game
itself; `hub.declared` derives ``hub play``, ``hub serve``, ``hub match``, the seats and the
JSON bot protocol (docs/bots.md) from it, and records and the web view draw with its
pictures. This module imports only the standard library, attrs and the core's pure
modules, so that listing the installed games stays cheap.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

import attrs

from hub.core.model.referee import Outcome
from hub.core.model.values import JSON

if TYPE_CHECKING:
    from contextlib import AbstractAsyncContextManager

    from hub.core.model.bus import EventBus
    from hub.core.model.clock import TimeControl
    from hub.core.model.events import GameRecord
    from hub.core.play.chance import Chance, Simultaneous
    from hub.core.play.kit import GameSpec
    from hub.core.play.threads import StopFlag
    from hub.core.play.vocabulary import Fault, Seat

S = TypeVar("S")
M = TypeVar("M")

Value = bool | int | float | str
"""What a setting may hold."""

Exporter = Callable[["GameRecord", "str | None", "int | None"], str]
"""One record in a format of the game's own (`Game.exports`): ``exporter(record, match_id,
index)`` (``index`` counts the match's games from 0); the text ends with a newline."""


class SettingsError(ValueError):
    """A setting that is unknown or out of its range; the message says which and why."""


class BadMove(ValueError):
    """Text that is not a move in the game's notation (a well-formed but illegal move is the
    referee's `IllegalMove`)."""


def _value_type(option: Option) -> type:
    return type(option.default)


@attrs.frozen
class Option:
    """One setting of a game: its name (``rows``; ``--rows`` on a command line), its default
    (whose type is the setting's: bool, int, float or str), a help line, and its range:
    ``low``/``high`` for numbers, ``choices`` for text."""

    name: str
    default: Value
    help: str = ""
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    switch: bool = False
    """A bool given by its bare flag (``--pie``) instead of ``--pie yes`` (Kalah's options
    on ``hub match``, as its server and its documentation spell them)."""

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def convert(self, value: object) -> Value:
        """``value`` (a typed value or its text) as this setting's type, checked; raises
        `SettingsError` saying what is wrong."""
        kind = _value_type(self)
        try:
            if isinstance(value, str) and kind is not str:
                converted: Value = _parse_text(kind, value)
            elif kind is float and isinstance(value, int) and not isinstance(value, bool):
                converted = float(value)
            elif type(value) is not kind:
                raise ValueError
            else:
                converted = value  # type: ignore[assignment]
        except ValueError:
            raise SettingsError(f"{self.name} must be {_KIND_WORDS[kind]}, not {value!r}") from None
        if isinstance(converted, int | float) and not isinstance(converted, bool):
            if self.low is not None and converted < self.low:
                raise SettingsError(f"{self.name} must be at least {self.low:g}, not {converted}")
            if self.high is not None and converted > self.high:
                raise SettingsError(f"{self.name} must be at most {self.high:g}, not {converted}")
        if self.choices and converted not in self.choices:
            raise SettingsError(f"{self.name} must be one of {', '.join(self.choices)}")
        return converted


_KIND_WORDS = {bool: "yes or no", int: "a whole number", float: "a number", str: "text"}


def _parse_text(kind: type, text: str) -> Value:
    if kind is bool:
        word = text.strip().lower()
        if word in ("1", "yes", "true", "on"):
            return True
        if word in ("0", "no", "false", "off"):
            return False
        raise ValueError(text)
    if kind is int:
        return int(text.strip(), 10)
    return float(text)


def validate_settings(options: Sequence[Option], given: Mapping[str, object]) -> dict[str, Any]:
    """Every option's value (its default unless ``given``), checked; unknown names refused."""
    known = {option.name: option for option in options}
    unknown = sorted(set(given) - set(known))
    if unknown:
        names = ", ".join(known) or "none"
        raise SettingsError(f"unknown setting {unknown[0]!r} (the settings are: {names})")
    return {
        name: option.convert(given[name]) if name in given else option.default
        for name, option in known.items()
    }


class Pictures:
    """The `pictures` facet: how a game draws its views, for people. Every method is pure
    over JSON views (a picture is drawn from the view alone); ``names`` are the players'
    names in seat order when the caller knows them (a record, a page), else empty.
    A game subclasses it and sets ``pictures = MyPictures()`` on its declaration."""

    def text(self, view: JSON, names: Sequence[str] = ()) -> str:
        """The terminal's picture: ONE string of several lines, no trailing newline."""
        import json  # here, not at the top: clubhub's start-up never draws (instructions)

        return json.dumps(view, indent=1)

    def html(self, view: JSON, names: Sequence[str] = ()) -> str:
        """The web board's picture of a view: an HTML or SVG fragment, text escaped. Every
        move a person may click carries ``data-move="TEXT"`` (see docs/web.md); the default
        draws the text picture."""
        from html import escape  # (its entity table costs start-up time: only pages need it)

        return f'<pre class="picture">{escape(self.text(view, names))}</pre>'

    def html_after(self, view: JSON, names: Sequence[str], move: str, before: JSON) -> str:
        """`html` of the position that ``move`` (its text) led to from the view ``before``:
        a game whose view does not say its last move marks it here (Kalah: the holes sown
        and where the last seed fell; clubs: the card played and the trick it completed).
        Default: `html` (Connect Four's and chess's views carry it)."""
        return self.html(view, names)

    def since_start_html(self, view: JSON, start: JSON, settings: Mapping[str, Any]) -> str:
        """A fragment a page shows under the board at ``view``, knowing the view ``start``
        the game began from and its recorded ``settings`` (chess: the position it started
        from, with the opening's moves, and the pieces each side has captured). Default:
        nothing."""
        return ""

    def status(
        self, view: JSON, *, termination: str | None = None, winners: Sequence[int] | None = None
    ) -> list[str]:
        """Lines the web board shows under a view (``Checkmate! Black wins!``); at a game's
        last ply ``termination`` and ``winners`` say how it ended. Default: none."""
        return []

    def move_words(self, before: JSON, move: str) -> str:
        """A move (its text) as a person reads it, from the spectator's view before it: the
        pages' move lists (chess: SAN). Default: the text itself."""
        return move

    def move_number(self, before: JSON) -> str | None:
        """How the pages number a move, from the spectator's view before it (chess: ``4.``
        for White's fourth move, ``4...`` for Black's); None (the default): by ply."""
        return None


AiMove = Callable[["Game[Any, Any]", Any, int, float, "StopFlag"], Any]
"""``move(game, seen, level, seconds, stop)``: the built-in AI's move within ``seconds``
(see `Ai`)."""


@attrs.frozen
class Ai:
    """The `ai` facet: a game's built-in player, ``ai:N`` for N in ``levels``.

    ``move(game, seen, level, seconds, stop)`` returns a move; it runs in a worker thread
    and should give up soon after ``stop.is_set()``; ``seconds`` is how long to think
    (``inf``: no limit), the core's budget from the seat's clocks
    (`hub.core.play.threads.TurnTime.budget`: per-move limit, game clock, increment, less a
    margin). The seat has a hard stop behind it: an AI that has not answered shortly before
    the deadline is answered for, with the move it last ``stop.offer``ed (its best so far),
    else the first legal move; so an iterative search should offer each iteration's move.
    ``seen`` is the state, or, for a game that hides something (a `Hidden` facet), only its
    seat's VIEW (``game.view(state, seat)``): an honest AI knows what its seat knows, no more."""

    levels: range
    move: AiMove
    default: int | None = None
    """The level of a bare ``ai`` (None: the middle of ``levels``)."""
    prepare: Callable[[], None] | None = None
    """Called when a seat is made, before any clock runs: what the AI's first move should
    not pay for on its clock (a heavy import, a table built once)."""

    def level(self) -> int:
        """The level of a bare ``ai``."""
        if self.default is not None:
            return self.default
        return self.levels[len(self.levels) // 2]


def _same_view(view: JSON) -> JSON:
    return view


@attrs.frozen
class Hidden:
    """The `hidden` facet of a game whose spectator view hides something while the game
    goes on (a hand). ``record_view(state)`` is a state's view in the record of a finished
    game (the match loop makes every view of the record with it, once the game is over);
    ``concealed(view)`` is a view as a spectator of a live game may see it (the web view's
    pages of a running game take out what only its owner may see)."""

    record_view: Callable[[Any], JSON]
    concealed: Callable[[JSON], JSON] = _same_view


class SeatKind(Protocol):
    """A seat kind of a game's own (`Programs.kinds`, `Programs.level`): the seat for
    ``command`` (the spec's text after ``KIND:``, the whole of a bare program spec, or an
    AI's level) in seat number ``seat``, recorded as ``spec``; ``seed`` seeds its choices,
    if it makes any; ``detail`` is the `MatchPlan`'s (None outside a match). See
    `hub.declared.seats` for what such a seat may do."""

    def __call__(
        self, game: Game[Any, Any], command: str, *, seat: int, spec: str, seed: int,
        detail: Any = None,
    ) -> Seat[Any, Any]: ...  # fmt: skip


class PersonKind(Protocol):
    """The seat of ``human`` in ``hub match`` (`Programs.person`): ``person(game, spec,
    events)`` is an async context manager of the seat (``spec``: the
    `hub.core.play.kit.GameSpec`)."""

    def __call__(
        self, game: Game[Any, Any], spec: GameSpec, events: EventBus
    ) -> AbstractAsyncContextManager[Seat[Any, Any]]: ...


def _no_problem(kind: str, command: str, spec: str) -> str | None:
    return None


def _nothing_to_import() -> None:
    return None


@attrs.frozen
class Programs:
    """The `programs` facet: seats of a game's own beside the generic ones.

    ``kinds``: ``{"uci": engine_seat}`` makes ``uci:COMMAND`` a seat (chess: a UCI
    engine); ``program_kind``: the kind of a bare program spec on ``hub match`` (``kalah``,
    ``clubs``, ``uci``; ``program``: the JSON bot protocol); ``level``: the seat of
    ``ai:N`` instead of the generic one over `Ai.move` (chess: its levels budget their
    search from both clocks); ``person``: the seat of ``human`` on ``hub match`` (Kalah
    shows its own board and words); ``check(kind, command, spec)``: None if ``command``
    makes a seat of the game's own ``kind``, else what is wrong (checked before any game);
    ``warm()``: import that implementation now (a ``hub match`` worker calls it as it starts,
    while the match is still being set up, so that its first game does not wait for those
    imports). The callables import their implementation when called, so that a declaration
    stays cheap to import."""

    kinds: Mapping[str, SeatKind] = attrs.field(factory=dict)
    program_kind: str = "program"
    level: SeatKind | None = None
    person: PersonKind | None = None
    check: Callable[[str, str, str], str | None] = _no_problem
    warm: Callable[[], None] = _nothing_to_import


GENERIC_PROGRAMS = Programs()
"""The `programs` of a game with no seats of its own."""


def _declines(state: Any, seat: int) -> bool:
    return False


@attrs.frozen
class AgreedDraws:
    """The `agreed_draws` facet of a game with draws by agreement (chess): a person's draw
    offer on the page, accepted by every other seat, ends the game with ``outcome(state)``
    (`hub.core.play.match.Match.agree_draw`). ``accepts(state, seat)``: whether the built-in
    players (``ai:N``, ``random``) at ``seat`` accept a draw offered at ``state``, by their
    evaluation of it (default: they decline). A game without the facet offers no draws."""

    outcome: Callable[[Any], Outcome]
    accepts: Callable[[Any, int], bool] = _declines


@attrs.frozen
class Series:
    """The `series` facet of a game played in series with a running score (the chess
    console's games): ``score(settings)`` is the score before a game, by seat, from its
    recorded settings (``[]``: it goes on from the series' previous game; None: a game of no
    series); the web view's page ``/PAGE`` follows the latest game of a series, with its
    score."""

    page: str
    score: Callable[[Mapping[str, Any]], list[float] | None]


Sample = Callable[["Game[Any, Any]", JSON, int, random.Random], Any]
"""``sample(game, view, seat, rng)``: a state consistent with what ``seat`` sees in
``view``, everything it cannot see drawn from ``rng``."""
Playout = Callable[["Game[Any, Any]", Any, random.Random], Outcome]
"""``playout(game, state, rng)``: the outcome of playing an unfinished ``state`` to its end
by the game's own cheap policy (random moves on a representation of its own, without
listing whole turns; a capture first; ...): what a playout of the general player costs."""


@attrs.frozen
class Search:
    """The `search` facet: what a game offers the general game player beyond its rules.
    ``sample`` (a game with hidden information: `Sample`), ``playout`` (a cheaper or wiser
    playout policy than a uniformly random move: `Playout`). Both optional."""

    sample: Sample | None = None
    playout: Playout | None = None


@attrs.frozen
class MatchPlan(Generic[S, M]):
    """One game of a match, as the game's `MatchSetup` plans it (a value; nothing is left on
    the declaration): the ``game`` that referees it (chess: with an arbiter's draws and a
    ply cap), its clock(s), the state it starts from and what the game's own seats need of
    the match (``detail``: Kalah's layout, told to its agents)."""

    game: Game[S, M]
    clock: TimeControl | Sequence[TimeControl]
    state: S
    detail: Any = None


class MatchSetup:
    """The `setup` facet: how ``hub match`` sets a game up (`hub.declared.kit`). Every
    method has a default that suits most games: the game's options and ``--tc``, openings
    of `opening_plies` random plies from a seeded start. A game with its own (Kalah's
    layouts, clubs' decks, chess's openings and arbiter) subclasses it."""

    opening_plies: int = 2
    """How many random plies from `Game.start` make one opening (distinct games between
    deterministic players); 0 with a start that draws its own layout."""

    def options(self, game: type[Game[Any, Any]]) -> tuple[Option, ...]:
        """The settings ``hub match`` offers as options: the game's own, then ``tc``, the
        time control (``10+0.1``, ``100ms``, ``none``)."""
        return (*game.options, Option("tc", DEFAULT_TC, TC_HELP))

    def settings(self, game: type[Game[Any, Any]], given: Mapping[str, Value]) -> dict[str, Any]:
        """The settings recorded with each game of a match (JSON), from the options given
        (converted by `options`' types; the others are absent); raises `SettingsError` (or
        `ValueError`). Default: the game's settings, checked by building it, and ``tc``."""
        rules = game(own_settings(game, given))
        tc = str(given.get("tc", DEFAULT_TC))
        parse_time_control(tc)  # checked now: a usage error before any game
        return {**rules.settings, "tc": tc}

    def rules(self, game: type[Game[S, M]], settings: Mapping[str, Any], seats: int) -> Game[S, M]:
        """The game of a match's recorded ``settings`` for ``seats``."""
        return game(own_settings(game, settings), seats=seats)

    def openings(
        self, game: type[Game[Any, Any]], settings: Mapping[str, Any], count: int, seed: int
    ) -> list[Any]:
        """``count`` JSON openings drawn from ``seed``, distinct while there are enough
        (`hub.core.play.kit.TournamentKit.openings`). Default: `opening`'s, each recorded as
        ``{"seed": S, "moves": ["4", "3"]}`` (the start's seed and the moves' texts),
        distinct by the position each leads to."""
        return self._draw(game, settings, count, seed, self.opening_plies)

    def fixed_openings(
        self, game: type[Game[Any, Any]], settings: Mapping[str, Any], count: int, seed: int
    ) -> list[Any]:
        """The openings of ``--openings fixed``: none (every game from the usual start) for
        a game that does not `deal`; for one that does, ``count`` deals with no opening
        plies, so that the games are still dealt afresh. Default: `openings` when
        `opening_plies` is 0, else the start's seeds alone (``{"seed": S, "moves": []}``)."""
        if not self.deals(game):
            return []
        if self.opening_plies == 0:
            return self.openings(game, settings, count, seed)
        return self._draw(game, settings, count, seed, 0)

    def _draw(
        self, game: type[Game[Any, Any]], settings: Mapping[str, Any], count: int, seed: int,
        plies: int,
    ) -> list[Any]:  # fmt: skip
        from hub.core.play.kit import draw_distinct

        rules = self.rules(game, settings, game.players[0])
        rng = random.Random(seed)
        reached: dict[int, Hashable] = {}

        def draw() -> dict[str, Any]:
            start_seed = rng.randrange(2**31)
            first, moves = self.opening(rules, random.Random(start_seed))
            moves = moves[:plies]
            texts, state = [], first
            for move in moves:
                texts.append(rules.move_text(state, move))
                state = rules.apply(state, move)
            opening = {"seed": start_seed, "moves": texts}
            reached[id(opening)] = _position_key(state)
            return opening

        # distinct by the position each leads to: two seeds (or two move orders) may reach one
        return draw_distinct(draw, count, key=lambda opening: reached[id(opening)])

    def deals(self, game: type[Game[Any, Any]]) -> bool:
        """Whether an opening decides hidden information or chance (a deal, the dice): then
        each game of a match gets its own (the two games of a pair are dealt differently;
        ``hub match --duplicate`` deals a pair alike) and no opening is shown while its game
        runs. Default: the game has a `Game.hidden` or a `Game.chance` facet."""
        return game.hidden is not None or game.chance is not None

    def public_opening(self, game: type[Game[Any, Any]], opening: Any) -> Any:
        """What spectators may be shown of ``opening`` while its game runs (the record of the
        finished game keeps it whole): nothing from which a hidden card or a chance outcome
        follows. Default: the opening's moves without the start's seed (the moves lead to the
        position everyone sees), nothing at all for a game that `deals`."""
        if self.deals(game) or not isinstance(opening, Mapping):
            return None if self.deals(game) else opening
        return {key: value for key, value in opening.items() if key != "seed"}

    def opening(self, game: Game[S, M], rng: random.Random) -> tuple[S, list[M]]:
        """One opening: `Game.start` from ``rng``, then up to `opening_plies` random legal
        plies (fewer where the game would end); the first state and those moves."""
        state = first = game.start(rng)
        moves: list[M] = []
        for _ in range(self.opening_plies):
            legal = list(game.legal_moves(state))
            if not legal or game.to_move(state) is None:
                break
            move = rng.choice(legal)
            after = game.apply(state, move)
            if game.outcome(after) is not None:
                break
            state = after
            moves.append(move)
        return first, moves

    def plan(
        self, game: type[Game[S, M]], settings: Mapping[str, Any], seats: int, opening: Any,
        game_id: str,
    ) -> MatchPlan[S, M]:  # fmt: skip
        """The plan of one game of a match: its recorded ``settings`` for ``seats``, from
        ``opening`` (one of `openings`, or None: the usual start). Default: the game of the
        settings, ``tc``'s clock, `Game.start` from the opening's seed, then its moves."""
        rules = self.rules(game, settings, seats)
        clock = parse_time_control(str(settings.get("tc", DEFAULT_TC)))
        if not isinstance(opening, Mapping):
            return MatchPlan(rules, clock, rules.start(random.Random(0)))
        state = rules.start(random.Random(int(opening.get("seed", 0))))
        for text in opening.get("moves", ()):
            state = rules.apply(state, rules.parse_move(state, str(text)))
        return MatchPlan(rules, clock, state)


def _position_key(state: Any) -> Hashable:
    """What identifies the position ``state`` (two openings leading to one position are
    one): the state itself when it is hashable (a frozen value), else its ``repr`` (a
    view would not do: a spectator's may hide a deal that differs)."""
    try:
        hash(state)
    except TypeError:
        return ("repr", repr(state))
    return ("state", state)


def own_settings(game: type[Game[Any, Any]], settings: Mapping[str, Any]) -> dict[str, Any]:
    """The game's own `Game.options` among a match's settings (not ``tc`` or an opening)."""
    names = {option.name for option in game.options}
    return {key: value for key, value in settings.items() if key in names}


class Game(Generic[S, M]):
    """A game's declaration; an instance is the game for one set of settings.

    The required core: the class attributes, `start`, `to_move`, `legal_moves`, `apply`,
    `outcome` and `view` (everything else has a default). States must be immutable values
    (``attrs.frozen``, tuples); views must be JSON and self-contained (a picture is drawn
    from the view alone). Methods are pure: no clock, no I/O, no global random.

    Optional facets, class attributes a game sets when it has them: `pictures`
    (`Pictures`), `ai` (`Ai`), `hidden` (`Hidden`), `programs` (`Programs`), `setup`
    (`MatchSetup`, ``hub match``), `series` (`Series`), `agreed_draws` (`AgreedDraws`),
    `search` (`Search`), `chance` (`hub.core.play.chance.Chance`) and
    `simultaneous` (`hub.core.play.chance.Simultaneous`); each is a typed object, read by the
    layers that need it.
    """

    name: ClassVar[str] = ""
    """The game's name: ``hub play NAME``, the records' ``game`` column."""
    summary: ClassVar[str] = ""
    """One line for ``hub games``."""
    options: ClassVar[tuple[Option, ...]] = ()
    seat_names: ClassVar[tuple[str, ...]] = ()
    """Names of the seats in order (``Red``, ``Yellow``); default ``Seat 1``, ``Seat 2``..."""
    players: ClassVar[tuple[int, int]] = (2, 2)
    """The fewest and the most seats a game takes (the number of seat specs given)."""
    exports: ClassVar[Mapping[str, Exporter]] = {}
    """Formats of the game's own for its records (``{"pgn": ...}``), beyond the JSON lines
    every game has: ``hub games export --format NAME`` writes them."""

    # -- facets --------------------------------------------------------------------------------

    pictures: ClassVar[Pictures] = Pictures()
    """How it draws its views (default: the view as JSON text)."""
    ai: ClassVar[Ai | None] = None
    """Its built-in player (None: the game ships none; every game gets ``random``)."""
    hidden: ClassVar[Hidden | None] = None
    """What it hides from spectators while a game goes on (None: nothing)."""
    programs: ClassVar[Programs] = GENERIC_PROGRAMS
    """Seats of its own (default: none)."""
    setup: ClassVar[MatchSetup] = MatchSetup()
    """How ``hub match`` sets it up."""
    series: ClassVar[Series | None] = None
    """Its games' running score across a series (None: none)."""
    agreed_draws: ClassVar[AgreedDraws | None] = None
    """Its draws by agreement (None: none, and its pages offer none)."""
    search: ClassVar[Search | None] = None
    """What the general game player (``mcts:N``, and ``ai:N`` of a game without an `ai`;
    `hub.core.play.mcts`) may use beyond the rules: a sampler of states consistent with a seat's
    view (required for a game with a `hidden` facet), a cheap playout (None: neither)."""
    chance: ClassVar[Chance[Any, Any] | None] = None
    """Where chance acts during play (dice, a draw), drawn by the match loop
    (`hub.core.play.chance.Chance`; None: chance acts only in `start`)."""
    simultaneous: ClassVar[Simultaneous[Any] | None] = None
    """Where several seats choose at once (`hub.core.play.chance.Simultaneous`; None: one seat
    moves at a time)."""

    def __init__(self, settings: Mapping[str, object] | None = None, seats: int = 0) -> None:
        self.settings: dict[str, Any] = validate_settings(self.options, settings or {})
        low, high = self.players
        self.seat_count = seats or low
        if not low <= self.seat_count <= high:
            count = f"{low}" if low == high else f"{low} to {high}"
            raise SettingsError(f"{self.name} takes {count} players, not {seats}")

    # -- rules ----------------------------------------------------------------------------------

    def start(self, rng: random.Random) -> S:
        """The first state (``rng``: for a game that deals or lays out at random)."""
        raise NotImplementedError

    def seats(self, state: S) -> int:
        """How many seats play (fixed for a game; numbered from 0)."""
        return self.seat_count

    def to_move(self, state: S) -> int | None:
        """The seat to move; None exactly when the game is over. A turn of several moves
        by one player (a capture that moves again) names the same seat again."""
        raise NotImplementedError

    def legal_moves(self, state: S) -> Sequence[M]:
        """Every legal move, in a deterministic order; at least one while a seat is to
        move, none once the game is over."""
        raise NotImplementedError

    def candidate_moves(self, state: S) -> Iterable[M]:
        """Well-formed moves, legal or not (the conformance suite tries the illegal ones;
        default: the legal ones)."""
        return self.legal_moves(state)

    def apply(self, state: S, move: M) -> S:
        """The state after ``move``; raises `hub.core.model.referee.IllegalMove` (and leaves
        ``state`` as it was) for a move the rules do not allow."""
        raise NotImplementedError

    def outcome(self, state: S) -> Outcome | None:
        """The result once the game is over; None exactly while a seat is to move."""
        raise NotImplementedError

    def forfeit(self, state: S, fault: Fault) -> Outcome:
        """The outcome when ``fault`` stops a game. Default: every other seat wins."""
        from hub.core.play.vocabulary import forfeit_outcome

        return forfeit_outcome(self.seats(state), fault)

    # -- notation -------------------------------------------------------------------------------

    def move_text(self, state: S, move: M) -> str:
        """``move`` (made in ``state``) in the game's own notation (default ``str(move)``)."""
        return str(move)

    def parse_move(self, state: S, text: str) -> M:
        """The move that ``text`` names; raises `BadMove` if it names none. The default looks
        the text up among the legal moves, then the candidates (so that an illegal but
        well-formed move reaches the rules, which refuse it as illegal)."""
        wanted = text.strip().lower()
        for moves in (self.legal_moves(state), self.candidate_moves(state)):
            for move in moves:
                if self.move_text(state, move).lower() == wanted:
                    return move
        raise BadMove(f"{text.strip()[:40]!r} is not a move of {self.name}")

    # -- views ----------------------------------------------------------------------------------

    def view(self, state: S, seat: int | None = None) -> JSON:
        """What ``seat`` may see of ``state`` (None: a spectator, and the records and the
        web view, which show the spectator's view), as JSON. Hidden information (a hand)
        appears only in its owner's view (and the game has a `hidden` facet)."""
        raise NotImplementedError

    def seat_name(self, seat: int, view: JSON = None) -> str:
        """How people are told of ``seat`` (the terminal, the pages, the records, results
        in words): its `seat_names` entry (``White``), else ``Seat N`` counted from 1. A
        game whose seats change sides (Kalah's pie swap) says, given the position ``view``,
        where the seat sits now. Chance's outcomes (seat `hub.core.play.chance.CHANCE`, -1) are
        ``Chance``'s."""
        if seat < 0:  # `hub.core.play.chance.CHANCE`
            return "Chance"
        if seat < len(self.seat_names):
            return self.seat_names[seat]
        return f"Seat {seat + 1}"


def legal_texts(game: Game[S, M], state: S) -> list[str]:
    """The texts of the legal moves at ``state`` (what a bot, a person or a page is offered;
    a function, not a member: nothing a game declares)."""
    return [game.move_text(state, move) for move in game.legal_moves(state)]


DEFAULT_TC = "10+0.1"
TC_HELP = "time control: none, 500ms or 5s per move, or BASE+INC seconds for the game (300+2)"


def parse_time_control(text: str) -> TimeControl:
    """`TimeControl.parse`, its error as a `SettingsError` (``--tc`` of every verb)."""
    from hub.core.model.clock import TimeControl

    try:
        return TimeControl.parse(text)
    except ValueError as exc:
        raise SettingsError(str(exc)) from None


def _replay(game: Game[Any, Any], first: Any, moves: Sequence[tuple[int, str]]) -> Iterator[Any]:
    from hub.core.play.chance import CHANCE

    state = first
    yield state
    for seat, text in moves:
        if seat == CHANCE:
            outcomes = game.chance.outcomes(state) if game.chance is not None else None
            if outcomes is None:
                raise BadMove(f"the record has a chance outcome {text!r} where chance does not act")
            found = [move for move, _ in outcomes if game.move_text(state, move) == text]
            if not found:
                raise BadMove(f"{text!r} is not an outcome of chance here")
            move = found[0]
        else:  # a simultaneous turn's moves were applied one by one: each is `to_move`'s
            move = game.parse_move(state, text)
        state = game.apply(state, move)
        yield state


def replay_moves(game: Game[Any, Any], first: Any, moves: Sequence[tuple[int, str]]) -> list[Any]:
    """Every state of a game from ``first`` through ``moves`` (seat, text), chance outcomes
    (seat `hub.core.play.chance.CHANCE`) included: a record replayed through its declaration."""
    return list(_replay(game, first, moves))
