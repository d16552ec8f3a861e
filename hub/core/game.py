"""The game declaration: one class from which hub derives every verb of a game.

A game subclasses `Game` and gives, in one place:

* **settings** as `Option`s with defaults (``Game(settings)`` validates them; the instance
  *is* the `Referee` built from those settings);
* **rules**: `start` (the first state, from a seeded ``random.Random`` for games that deal
  or lay out at random), `to_move`, `legal_moves`, `apply` (raise `IllegalMove`),
  `outcome` and `seats`: the `hub.core.referee.Referee` interface. A turn of several moves
  by one player (a capture that moves again) is `to_move` naming the same seat again;
* **notation**: `move_text` and `parse_move` (text to move; raise `BadMove` for text that
  is not a move at all). The default `parse_move` finds the move among the legal (then the
  candidate) moves by its text, so most games write only `move_text`;
* **what each seat may see**: `view(state, seat)` is a JSON value; ``seat=None`` is a
  spectator (and the records and the web view, which show the spectator's view). Hidden
  information (a hand) appears only in its owner's view;
* **pictures**, drawn from a view alone: `text` (the terminal, ``hub games show``) and
  `html` (the web board; an HTML or SVG fragment); `since_start_html` adds what a page
  shows knowing where the game began (chess: the opening, the captured pieces);
* **players**: `ai(state, level, stop)` for levels `ai_levels` (``ai:N``); every game also
  gets ``random``.

`hub.core.plugin.GamePlugin.declared` (or an entry point naming the class itself) turns the
declaration into a plug-in: ``hub play``, ``hub serve``, ``hub match``, records, ``hub games
show``, the web board and the JSON bot protocol (docs/bots.md) come from `hub.declared`.
This module imports only the standard library, attrs and the core's pure modules, so that
listing the installed games stays cheap.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

import attrs

from hub.core.referee import Outcome
from hub.core.values import JSON

if TYPE_CHECKING:
    from hub.core.chance import Chance, Simultaneous
    from hub.core.clock import TimeControl
    from hub.core.events import GameRecord
    from hub.core.local_seats import StopFlag
    from hub.core.match import Fault
    from hub.core.mcts import Search
    from hub.core.referee import Referee

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


class Game(Generic[S, M]):
    """A game's declaration; an instance is its `Referee` for one set of settings.

    Subclasses set the class attributes and implement `start`, `to_move`, `legal_moves`,
    `apply`, `outcome` and `view`; everything else has a default. States must be immutable
    values (``attrs.frozen``, tuples); views must be JSON and self-contained (a picture is
    drawn from the view alone). Methods are pure: no clock, no I/O, no global random.
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
    ai_levels: ClassVar[range] = range(0)
    """The levels of the built-in AI (``ai:N``); empty: the game ships no AI."""
    ai_default: ClassVar[int | None] = None
    """The level of a bare ``ai`` (None: the middle of `ai_levels`)."""
    level_seat: ClassVar[str] = ""
    """``"module:function"``: a seat kind (`hub.declared.seats.SeatKind`, the command being
    the level) for ``ai:N`` instead of the generic one over `timed_ai` (chess: its levels
    budget their search from both clocks). Empty: the generic one."""
    seat_kinds: ClassVar[Mapping[str, str]] = {}
    """Seat kinds of the game's own beside the generic ones: ``{"uci": "module:function"}``
    makes ``uci:COMMAND`` a seat (chess: a UCI engine); the function takes the game and the
    text after the colon and returns the seat (a `hub.core.match.Seat` that starts and stops
    what it needs in its ``begin`` and ``end``)."""
    opening_plies: ClassVar[int] = 2
    """How many random plies from `start` make one opening of ``hub match`` (distinct games
    between deterministic players); 0 with a `start` that draws its own layout."""
    hidden_information: ClassVar[bool] = False
    """True for a game whose spectator view hides something while the game goes on (a
    hand): its record keeps `record_view`s instead, made once the game is over."""
    program_kind: ClassVar[str] = "program"
    """The seat kind of a bare program spec on ``hub match`` (``clubber``, ``stockfish``):
    ``program``, the JSON bot protocol, or one of `seat_kinds` (Kalah and clubs: a program
    of their own protocol; chess: a UCI engine). ``json:PROGRAM`` is the JSON bot protocol
    for every game."""
    match_person: ClassVar[str] = ""
    """``"module:function"``: the seat of ``human``, the person at this terminal, in ``hub
    match`` (Kalah shows its own board and words); ``function(game, spec, events)`` is an
    async context manager of the seat (``spec``: the `hub.core.plugin.GameSpec`). Empty:
    the generic person of ``hub play``."""
    exports: ClassVar[Mapping[str, Exporter]] = {}
    """Formats of the game's own for its records (``{"pgn": ...}``), beyond the JSON lines
    every game has: ``hub games export --format NAME`` writes them."""
    chance: Chance[Any, Any] | None = None
    """The chance facet (`hub.core.chance.Chance`): where chance acts during play (dice,
    a draw), drawn by the match loop. None: chance acts only in `start`."""
    simultaneous: Simultaneous[Any] | None = None
    """The simultaneous-move facet (`hub.core.chance.Simultaneous`): where several seats
    choose at once. None: one seat moves at a time."""

    def __init__(self, settings: Mapping[str, object] | None = None, seats: int = 0) -> None:
        self.settings: dict[str, Any] = validate_settings(self.options, settings or {})
        low, high = self.players
        self.seat_count = seats or low
        if not low <= self.seat_count <= high:
            count = f"{low}" if low == high else f"{low} to {high}"
            raise SettingsError(f"{self.name} takes {count} players, not {seats}")

    # -- rules (the Referee interface) -------------------------------------------------------

    def start(self, rng: random.Random) -> S:
        """The first state (``rng``: for a game that deals or lays out at random)."""
        raise NotImplementedError

    def seats(self, state: S) -> int:
        return self.seat_count

    def to_move(self, state: S) -> int | None:
        raise NotImplementedError

    def legal_moves(self, state: S) -> Sequence[M]:
        raise NotImplementedError

    def candidate_moves(self, state: S) -> Iterable[M]:
        """Well-formed moves, legal or not (default: the legal ones)."""
        return self.legal_moves(state)

    def apply(self, state: S, move: M) -> S:
        raise NotImplementedError

    def outcome(self, state: S) -> Outcome | None:
        raise NotImplementedError

    # -- notation ------------------------------------------------------------------------------

    def move_text(self, state: S, move: M) -> str:
        return str(move)

    def parse_move(self, state: S, text: str) -> M:
        """The move that ``text`` names; raises `BadMove` if it names none. The default looks
        the text up among the legal moves, then the candidates (so that an illegal but
        well-formed move reaches the referee, which refuses it as illegal)."""
        wanted = text.strip().lower()
        for moves in (self.legal_moves(state), self.candidate_moves(state)):
            for move in moves:
                if self.move_text(state, move).lower() == wanted:
                    return move
        raise BadMove(f"{text.strip()[:40]!r} is not a move of {self.name}")

    # -- views and pictures ----------------------------------------------------------------------

    def view(self, state: S, seat: int | None = None) -> JSON:
        """What ``seat`` may see of ``state`` (None: a spectator), as JSON."""
        raise NotImplementedError

    def text(self, view: JSON) -> str:
        """The terminal's picture of a view (several lines, no trailing newline)."""
        return json.dumps(view, indent=1)

    def html(self, view: JSON) -> str:
        """The web board's picture of a view: an HTML or SVG fragment, text escaped. Every
        move a person may click carries ``data-move="TEXT"`` (see docs/web.md); the default
        draws the text picture."""
        import html  # (when drawn: its entity table costs clubhub's start-up several ms)

        return f'<pre class="picture">{html.escape(self.text(view))}</pre>'

    # -- hidden information and named pictures (records, the web view) ---------------------------

    def record_view(self, state: S) -> JSON:
        """A state's view in the record of a finished game (only for `hidden_information`:
        the match loop then makes every view of the record with this, once the game is
        over). Default: the spectator's view."""
        return self.view(state, None)

    def concealed(self, view: JSON) -> JSON:
        """``view`` as a spectator of a live game may see it: a game with hidden information
        takes out what only its owner may see (the web view's pages of a running game).
        Default: the view as it is."""
        return view

    def record_label(self, seat: int) -> str:
        """How ``hub games show`` names a seat: its `seat_names` entry (``White``), else
        ``seat N`` counted from 0; clubs says ``player A``; ``chance`` for chance's outcomes."""
        if seat < 0:
            return "chance"
        return self.seat_names[seat] if seat < len(self.seat_names) else f"seat {seat}"

    def picture_text(self, view: JSON, names: Sequence[str]) -> str:
        """`text`, for a caller that knows the players' names (a record): a game may show
        them. Default: `text`."""
        return self.text(view)

    def picture_html(self, view: JSON, names: Sequence[str]) -> str:
        """`html`, for a caller that knows the players' names (a page). Default: `html`."""
        return self.html(view)

    def picture_html_after(self, view: JSON, names: Sequence[str], move: str, before: JSON) -> str:
        """`picture_html` of the position that ``move`` (its text) led to from the view
        ``before``: a game whose view does not say its last move marks it here (Kalah: the
        holes sown and where the last seed fell; clubs: the card played and the trick it
        completed). Default: `picture_html` (Connect Four's and chess's views carry it)."""
        return self.picture_html(view, names)

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

    def agreed_draw(self, state: S) -> Outcome | None:
        """The outcome of a draw its players agree at ``state`` (a person's draw offer on
        the page, accepted); None (the default): the game has no draws by agreement and its
        pages offer none."""
        return None

    def accepts_draw(self, state: S, seat: int) -> bool:
        """Whether the built-in players (``ai:N``, ``random``) at ``seat`` accept a draw
        offered at ``state``, by their evaluation of it. Default: they decline."""
        return False

    def session_score(self, settings: Mapping[str, Any]) -> list[float] | None:
        """For a game played in a session with a running score (the chess console's), the
        score before this game, by seat, from the game's recorded ``settings`` (``[]``: the
        score goes on from the session's previous game); the web view's ``/console`` page
        follows the latest such game. None (the default): a game of no such session."""
        return None

    def seat_name(self, seat: int) -> str:
        if seat < 0:  # `hub.core.chance.CHANCE`
            return "Chance"
        if seat < len(self.seat_names):
            return self.seat_names[seat]
        return f"Seat {seat + 1}"

    def move_words(self, before: JSON, move: str) -> str:
        """A move (its text) as a person reads it, from the spectator's view before it: the
        pages' move lists (chess: SAN). Default: the text itself."""
        return move

    def move_number(self, before: JSON) -> str | None:
        """How the pages number a move, from the spectator's view before it (chess: ``4.``
        for White's fourth move, ``4...`` for Black's); None (the default): by ply."""
        return None

    def seat_label(self, seat: int, view: JSON = None) -> str:
        """How a page names ``seat`` at the position ``view`` (the web view's players, the
        results in words); default `seat_name`. A game whose seats change sides (Kalah's pie
        swap) says where the seat sits now."""
        return self.seat_name(seat)

    # -- players -------------------------------------------------------------------------------

    search: ClassVar[Search | None] = None
    """What the general game player (``mcts:N``, and ``ai:N`` of a game without an AI of its
    own; hub.core.mcts) may use beyond the rules: a sampler of states consistent with a
    seat's view (required for a `hidden_information` game), a cheap playout."""

    def ai(self, state: S, level: int, stop: StopFlag) -> M:
        """The built-in AI's move at ``level`` (one of `ai_levels`); runs in a worker thread
        and should give up soon after ``stop.is_set()``."""
        raise NotImplementedError(f"{self.name} has no built-in AI")

    def timed_ai(self, state: S, level: int, seconds: float, stop: StopFlag) -> M:
        """The built-in AI's move with ``seconds`` left on its clock (``inf``: no limit),
        for an AI that budgets its time; default `ai`, which ignores the clock."""
        return self.ai(state, level, stop)

    # -- what the derived layers use ---------------------------------------------------------------

    @property
    def game(self) -> str:
        """The `hub.core.match.Notation` interface: the game's name."""
        return self.name

    def state_view(self, state: S) -> JSON:
        """The `hub.core.match.Notation` interface: the spectator's view."""
        return self.view(state, None)

    def legal_texts(self, state: S) -> list[str]:
        return [self.move_text(state, move) for move in self.legal_moves(state)]

    def opening(self, rng: random.Random) -> tuple[S, list[M]]:
        """One opening for a match: `start` from ``rng``, then up to `opening_plies` random
        legal plies (fewer where the game would end); the first state and those moves."""
        state = first = self.start(rng)
        moves: list[M] = []
        for _ in range(self.opening_plies):
            legal = list(self.legal_moves(state))
            if not legal or self.to_move(state) is None:
                break
            move = rng.choice(legal)
            after = self.apply(state, move)
            if self.outcome(after) is not None:
                break
            state = after
            moves.append(move)
        return first, moves

    # -- hub match (hub.declared.kit: the one TournamentKit of every game) -------------------------

    @classmethod
    def match_options(cls) -> tuple[Option, ...]:
        """The settings ``hub match`` offers as options: the game's own, then ``tc``, the
        time control (``10+0.1``, ``100ms``, ``none``). A game with a clock of its own (a
        limit per move) or match-only settings (a ply cap) gives its list."""
        return (*cls.options, Option("tc", DEFAULT_TC, TC_HELP))

    @classmethod
    def match_settings(cls, given: Mapping[str, Value]) -> dict[str, Any]:
        """The settings recorded with each game of a match (JSON), from the options given
        (converted by `match_options`' types; the others are absent); raises
        `SettingsError` (or `ValueError`). Default: the game's settings, checked by
        building it, and ``tc``."""
        rules = cls(cls._own_settings(given))
        tc = str(given.get("tc", DEFAULT_TC))
        parse_time_control(tc)  # checked now: a usage error before any game
        return {**rules.settings, "tc": tc}

    @classmethod
    def for_match(cls, settings: Mapping[str, Any], seats: int) -> Game[S, M]:
        """The game of a match's recorded ``settings`` (`match_settings`) for ``seats``."""
        return cls(cls._own_settings(settings), seats=seats)

    @classmethod
    def _own_settings(cls, settings: Mapping[str, Any]) -> dict[str, Any]:
        """The game's own `options` among a match's settings (not ``tc`` or an opening)."""
        names = {option.name for option in cls.options}
        return {key: value for key, value in settings.items() if key in names}

    @classmethod
    def check_seat(cls, kind: str, command: str, spec: str) -> str | None:
        """None if ``command`` makes a seat of the game's own ``kind`` (one of `seat_kinds`)
        in a match, else a message saying what is wrong (checked before any game; chess
        starts a UCI engine once). Default: None."""
        return None

    def match_openings(self, settings: Mapping[str, Any], count: int, seed: int) -> list[Any]:
        """``count`` JSON openings drawn from ``seed``, distinct while there are enough
        (`hub.core.plugin.TournamentKit.openings`). Default: `opening`'s, each recorded as
        ``{"seed": S, "moves": ["4", "3"]}`` (the start's seed and the moves' texts)."""
        from hub.core.plugin import draw_distinct

        rng = random.Random(seed)

        def draw() -> dict[str, Any]:
            start_seed = rng.randrange(2**31)
            first, moves = self.opening(random.Random(start_seed))
            texts, state = [], first
            for move in moves:
                texts.append(self.move_text(state, move))
                state = self.apply(state, move)
            return {"seed": start_seed, "moves": texts}

        return draw_distinct(draw, count)

    def match_start(self, opening: Any, game_id: str) -> S:
        """The state a match's game starts from: ``opening`` (one of `match_openings`, or
        None: the usual start). Default: `start` from the opening's seed, then its moves."""
        if not isinstance(opening, Mapping):
            return self.start(random.Random(0))
        state = self.start(random.Random(int(opening.get("seed", 0))))
        for text in opening.get("moves", ()):
            state = self.apply(state, self.parse_move(state, str(text)))
        return state

    def match_clock(self, settings: Mapping[str, Any]) -> TimeControl | Sequence[TimeControl]:
        """The clocks of a match's game (one for all seats, or one each). Default: ``tc``."""
        return parse_time_control(str(settings.get("tc", DEFAULT_TC)))

    def match_referee(self) -> Referee[S, M]:
        """The referee of a match's game. Default: the game itself; chess adds an arbiter's
        draws and a ply cap."""
        return self

    def forfeit(self, state: S, fault: Fault) -> Outcome:
        """The outcome when ``fault`` stops a game. Default: every other seat wins."""
        from hub.core.match import forfeit_outcome

        return forfeit_outcome(self.seats(state), fault)


DEFAULT_TC = "10+0.1"
TC_HELP = "time control: none, 500ms or 5s per move, or BASE+INC seconds for the game (300+2)"


def parse_time_control(text: str) -> TimeControl:
    """`TimeControl.parse`, its error as a `SettingsError` (``--tc`` of every verb)."""
    from hub.core.clock import TimeControl

    try:
        return TimeControl.parse(text)
    except ValueError as exc:
        raise SettingsError(str(exc)) from None


def is_game_class(obj: object) -> bool:
    return isinstance(obj, type) and issubclass(obj, Game) and bool(obj.name)
