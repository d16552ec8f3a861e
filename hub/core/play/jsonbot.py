"""The JSON bot protocol: one conversation for every declared game, sans-IO (docs/bots.md).

Newline-delimited JSON, one compact object per line. The hub speaks first:

* ``{"type":"welcome","protocol":1,"game":"connect4"}``; the bot answers
  ``{"type":"hello","name":"mybot"}`` (over TCP it may add ``"opponent":"ai:3"``,
  ``"random"`` or ``"any"``, the default: the next client to arrive; ``"game"``, which
  a server of several games, ``hub serve`` alone, needs: its welcome lists ``"games"``; and
  ``"token"``, the token of its registered name: ``hub bots add``; and ``"resume"``, the
  id of a game the server adjourned, whose seat it takes again: hub.declared.adjourned);
* ``{"type":"start","game":...,"seat":0,"seat_name":"Red","seats":2,"players":[...],
  "settings":{...},"time_control":"none","game_id":"..."}``: the game begins (its id: the
  records', and what a hello's ``resume`` names if the game is adjourned);
* ``{"type":"turn","ply":1,"view":...,"legal":["1","2",...],"clock":{"left_ms":...}}``:
  the bot's move is wanted; it answers ``{"move":"4"}`` before its clock runs out;
* ``{"type":"moved","seat":1,"move":"4"}``: a move was made (the bot's own too); the
  moves of a simultaneous turn are told only once every mover's move is in;
* ``{"type":"chance","move":"5"}``: chance acted (a die, a card drawn), as this seat may
  see it (the game's words, such as ``a card``, for a card drawn into another's hand);
* ``{"type":"time_up","seat":1}``: that seat's time ran out;
* ``{"type":"end","scores":[2,0],"winners":[0],"result":"win","termination":"normal",
  "detail":""}``: the game is over.

A reply that is not one JSON object with a string ``move`` that names a move is
``MALFORMED``; a move the rules refuse is ``ILLEGAL_MOVE``; none in time is ``TIMEOUT``; a
line over `MAX_LINE` bytes is ``MALFORMED``; EOF is ``DISCONNECT`` (`hub.core.play.seats.LineSeat`
maps them). Nothing a bot sends can raise anything else here.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import attrs

from hub.core.play.game import BadMove, Game
from hub.core.play.seats import BadMoveLine

if TYPE_CHECKING:
    from hub.core.play.vocabulary import MatchResult, Moved, Start, Turn

PROTOCOL = 1
MAX_LINE = 4096
"""The longest line a bot may send (its replies are short)."""
OPPONENTS_ANY = "any"
MAX_TOKEN = 200
"""The longest token a hello may carry (``hub bots add`` gives 43 characters)."""
MAX_GAME_ID = 64
"""The longest game id a hello's ``resume`` may name (hub's are 32 hex digits)."""


_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
"""``json.dumps(value, separators=(",", ":"), ensure_ascii=False)`` with its encoder made
once (``json.dumps`` makes one per call when given options: a fifth of a line's cost)."""


def dumps(value: object) -> str:
    """Compact JSON on one line (what every message is)."""
    return _encode(value)


def moved_line(seat: int, text: str) -> str:
    """``dumps({"type": "moved", "seat": seat, "move": text})``, by formatting: the line
    every seat is sent at every move."""
    return f'{{"type":"moved","seat":{seat:d},"move":{_encode(text)}}}'


def welcome_line(game: str) -> str:
    return dumps({"type": "welcome", "protocol": PROTOCOL, "game": game})


def site_welcome_line(games: Sequence[str]) -> str:
    """The welcome of a server of several games (``hub serve`` alone): the games it serves,
    one of which the hello names (``"game"``)."""
    return dumps({"type": "welcome", "protocol": PROTOCOL, "games": list(games)})


@attrs.frozen
class Hello:
    """A bot's answer to the welcome: its name and, over TCP, whom it wants to play and
    which game (``game``: "" when not given; a server of several games needs it)."""

    name: str
    opponent: str = OPPONENTS_ANY
    game: str = ""
    token: str | None = attrs.field(default=None, repr=False)
    """The registered name's token (``hub bots add``), if the bot sent one; never logged."""
    tc: str = ""
    """The time control asked for (``hub serve``'s ``--tc-choices``); "": the server's."""
    settings: dict[str, Any] = attrs.field(factory=dict)
    """The game's options asked for (``hub serve``'s ``--offer``); none: the server's."""
    resume: str = ""
    """The id of an adjourned game to play on (hub.declared.adjourned), "" for a new game."""


class BadHello(ValueError):
    """A line that is not a hello; the message says why."""


class BadMessage(ValueError):
    """A line that is not one JSON object."""


def _object(line: str) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        raise BadMessage(f"not JSON: {line[:60]!r}") from None
    if not isinstance(value, dict):
        raise BadMessage(f"not a JSON object: {line[:60]!r}")
    return value


def parse_hello(line: str) -> Hello:
    """The `Hello` on ``line``; raises `BadHello`."""
    try:
        value = _object(line)
    except BadMessage as exc:
        raise BadHello(str(exc)) from None
    if value.get("type") != "hello":
        raise BadHello('expected {"type":"hello","name":...}')
    name = value.get("name", "anonymous")
    opponent = value.get("opponent", OPPONENTS_ANY)
    token = value.get("token")
    game = value.get("game", "")
    tc, settings = value.get("tc", ""), value.get("settings", {})
    resume = value.get("resume", "")
    if not all(isinstance(text, str) for text in (name, opponent, game, tc, resume)):
        raise BadHello("name, opponent, game, tc and resume must be strings")
    if not isinstance(settings, dict):
        raise BadHello("settings must be an object of the game's options")
    if len(resume) > MAX_GAME_ID:
        raise BadHello(f"resume: a game id has at most {MAX_GAME_ID} characters")
    if token is not None and (not isinstance(token, str) or len(token) > MAX_TOKEN):
        raise BadHello(f"token must be a string of at most {MAX_TOKEN} characters")
    name = "".join(ch for ch in name if ch.isprintable()).strip()[:40] or "anonymous"
    return Hello(
        name,
        opponent.strip()[:40] or OPPONENTS_ANY,
        game=game.strip()[:40],
        token=token or None,
        tc=tc.strip()[:40],
        settings=settings,
        resume=resume.strip(),
    )


_NOT_OFFERED = object()


def _result_word(seat: int, winners: Sequence[int], seats: int) -> str:
    if not winners:
        return "none"
    if seat not in winners:
        return "loss"
    return "draw" if len(winners) > 1 else "win"


class JsonCodec:
    """`hub.core.play.seats.SeatCodec` of the JSON bot protocol for one declared game."""

    max_line = MAX_LINE

    def __init__(self, game: Game[Any, Any]) -> None:
        self.game = game
        self._looks_up = type(game).parse_move is Game.parse_move
        """The game reads a move as `Game.parse_move` does: the text looked up among the
        legal moves' (then the candidates'), so the turn's own texts can answer first."""
        self._offered: tuple[Any, dict[str, Any]] | None = None
        """The state of the last turn sent and its legal moves by lower-cased text (the
        first of a text kept), while the game ``_looks_up``."""

    def begin_lines(self, seat: int, start: Start[Any]) -> Sequence[str]:
        event = start.event
        message = {
            "type": "start",
            "game": self.game.name,
            "seat": seat,
            "seat_name": self.game.seat_name(seat),
            "seats": len(event.players),
            "players": [player.name for player in event.players],
            "settings": self.game.settings,
            "time_control": start.control.describe(),
            "game_id": event.game_id,
        }
        return [dumps(message)]

    def turn_lines(self, seat: int, turn: Turn[Any]) -> Sequence[str]:
        """``dumps({"type": "turn", "ply": ..., "view": ..., "legal": [...], "clock":
        {"left_ms": ...}})`` (the clock ``{}`` without a limit), formatted around the view
        and the moves' texts: the line of every move."""
        game, state = self.game, turn.state
        left = turn.time_left()
        clock = f'{{"left_ms":{round(left * 1000):d}}}' if math.isfinite(left) else "{}"
        moves = list(game.legal_moves(state))  # a Sequence; read twice below
        move_text = game.move_text
        texts = [move_text(state, move) for move in moves]  # `legal_texts`
        if self._looks_up:
            table: dict[str, Any] = {}
            for text, move in zip(texts, moves, strict=True):
                table.setdefault(text.lower(), move)
            self._offered = (state, table)
        view = _encode(game.view(state, seat))
        return [
            f'{{"type":"turn","ply":{turn.ply:d},"view":{view},"legal":{_encode(texts)},'
            f'"clock":{clock}}}'
        ]

    def parse_move(self, seat: int, line: str, state: Any) -> Any:
        try:
            value = _object(line)
        except BadMessage as exc:
            raise BadMoveLine(str(exc)) from None
        text = value.get("move")
        if not isinstance(text, str):
            raise BadMoveLine('expected {"move":"..."}, got ' + line[:60])
        offered = self._offered
        if offered is not None and offered[0] is state:  # the move of the turn just sent
            move = offered[1].get(text.strip().lower(), _NOT_OFFERED)
            if move is not _NOT_OFFERED:
                return move
        try:
            return self.game.parse_move(state, text)
        except BadMove as exc:
            raise BadMoveLine(str(exc)) from None

    def moved_lines(self, seat: int, moved: Moved[Any, Any]) -> Sequence[str]:
        if moved.seat < 0:  # chance's outcome, as this seat may see it (hub.core.play.chance)
            return [dumps({"type": "chance", "move": moved.text_for(seat)})]
        return [moved_line(moved.seat, moved.text)]

    def expects_ack(self, seat: int, moved: Moved[Any, Any]) -> bool:
        return False

    def check_ack(self, seat: int, line: str) -> bool:
        return True

    def time_up_lines(self, seat: int, late: int) -> Sequence[str]:
        return [dumps({"type": "time_up", "seat": late})]

    def end_lines(self, seat: int, result: MatchResult[Any, Any]) -> Sequence[str]:
        outcome = result.outcome
        winners = sorted(outcome.winners)
        message = {
            "type": "end",
            "scores": list(outcome.scores),
            "winners": winners,
            "result": _result_word(seat, winners, len(outcome.scores)),
            "termination": outcome.termination.value,
            "detail": outcome.detail or (result.fault.detail if result.fault else ""),
        }
        return [dumps(message)]
