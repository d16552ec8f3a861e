"""The hello conversation of ``hub serve GAME``: what a hello (a TCP client's, docs/bots.md)
or the lobby page's "Play" may ask for, checked before anything is looked up or seated.

Pure but for the registered names' look-up (`identify`, `register`: hub.records.identities,
through a `NameBook`): the opponent asked for (a built-in player, the next to arrive, a
friend) and who plays (a registered name with its token, or a guest). Where each hello then
goes (a game, the queue, a resumed game, a round-robin) is `hub.declared.serve.GameServer`'s.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from hub.core.model.values import PlayerInfo
from hub.core.play.game import Game
from hub.core.play.jsonbot import OPPONENTS_ANY, BadHello, Hello
from hub.declared.names import Refused, admit
from hub.declared.seats import SeatSpec, SeatSpecError, parse_seat
from hub.records.identities import BadName, Checked, NameBook, NamesUnavailable, NameVerdict

log = logging.getLogger(__name__)

BROWSER_OPPONENTS = ("any", "person", "friend", "random")
"""What a person starting a game on the lobby page may ask for, beside ``ai:N`` (``friend``
is ``person``): nothing else is resolved, so no request learns which programs exist."""
PEOPLE = ("any", "person", "friend")
"""The opponents that are people (the others are built-in players)."""
ASK_FOR = "ask for any, random or ai:N"
ASK_FROM_THE_WEB = "ask for any, person (a friend), random or ai:N"
NOT_RESUMED = "no adjourned games are resumed here (hub serve, every game, with records)"
"""The words of a resume where no records are kept (``hub serve GAME``, ``--no-record``)."""
CLOSING = "the server is shutting down"
"""The words of a hello or a new game refused, or a queue left, once
`hub.declared.serve.GameServer.close`d."""
BUILT_IN = re.compile(r"random|(ai|mcts)(:[0-9]{1,3})?")
"""The built-in players a hello or a page may ask for, checked before anything is looked
up: the answer to a program's path is the same whether it exists or not."""


def built_in(opponent: str, game: type[Game[Any, Any]]) -> SeatSpec:
    """The built-in player of ``game`` that ``opponent`` names; nothing else is looked up (a
    path is refused in the same words whether a program is there or not): `SeatSpecError`."""
    if not BUILT_IN.fullmatch(opponent):
        raise SeatSpecError(ASK_FOR)
    spec = parse_seat(opponent, game)
    if spec.kind not in ("ai", "random"):
        raise SeatSpecError(ASK_FOR)
    return spec


def opponent_of(hello: Hello, game: type[Game[Any, Any]]) -> SeatSpec | None:
    """The built-in player ``hello`` asks for, None for the next client; an opponent that
    is not offered makes it a bad hello (`BadHello`)."""
    if hello.opponent == OPPONENTS_ANY:
        return None
    try:
        return built_in(hello.opponent, game)
    except SeatSpecError as exc:
        raise BadHello(str(exc)) from None


def asked_from_the_web(opponent: str, game: Game[Any, Any]) -> SeatSpec | None:
    """The built-in player a person on the lobby page asks for as ``opponent``, None for a
    person (`PEOPLE`: the next to arrive, a friend); `SeatSpecError` for anything else (the
    same words for every other text: nothing is looked up), and for anyone but the next to
    arrive in a game of more than two."""
    if opponent not in BROWSER_OPPONENTS and not BUILT_IN.fullmatch(opponent):
        raise SeatSpecError(ASK_FROM_THE_WEB)
    if game.players[0] != 2 and opponent != OPPONENTS_ANY:
        raise SeatSpecError(f"{game.name} is played by more than two: ask for any")
    return None if opponent in PEOPLE else built_in(opponent, type(game))


async def identify(
    names: NameBook | None,
    name: str,
    token: str | None,
    *,
    guests: bool,
    kind: str = "remote",
    spec: str = "tcp",
) -> PlayerInfo:
    """Who ``name`` with ``token`` plays as among ``names`` (None: no registered names,
    every player a guest; ``guests``: whether guests play; hub.declared.names); `Refused`
    if it may not, and if the names cannot be read now."""
    checked = Checked(NameVerdict.UNKNOWN)
    if names is not None and (name or token):
        try:
            checked = await names.check(name, token)
        except NamesUnavailable as exc:
            log.warning("cannot read the registered names: %s", exc)
            raise Refused("the server cannot check names now: try again later") from None
    return admit(checked, name, token, guests=guests, kind=kind, spec=spec)


async def register(names: NameBook | None, name: str) -> str:
    """Register ``name`` for a person among ``names`` (the lobby page's "Pick a name"): its
    token; `Refused` if it is taken or not a name, or there are no names here."""
    if names is None:
        raise Refused("this server keeps no names (it records no games): play as a guest")
    try:
        return await names.add(name, "person")
    except BadName as exc:
        raise Refused(str(exc)) from None
    except NamesUnavailable as exc:
        log.warning("cannot register a name: %s", exc)
        raise Refused("the server cannot register names now: try again later") from None


def not_oneself(host: PlayerInfo, friend: PlayerInfo) -> str | None:
    """Why ``friend`` may not play the friend's seat of ``host``'s game under their name:
    it is the host's own (the friend then plays as the guest ``friend``)."""
    if host.identity.lower() == friend.identity.lower():
        return "you started this game: a friend plays this seat (as the guest friend here)"
    return None
