"""Who a player is allowed to be: a registered name proven by its token, or a guest.

A JSON bot's hello names it and may carry ``"token"`` (docs/bots.md); a person on the lobby
page sends the name and token their browser keeps (hub.web.names). `admit` decides, from
what the names database says (`hub.records.identities.Checked`), who sits down:

* a registered name with its token plays as that name: identity ``bot:NAME`` or
  ``person:NAME`` (its records and rating follow it);
* a registered name without a token, or with a wrong one, and a token sent with a name that
  is not registered, are refused (`Refused`, its words for the player);
* any other name plays as a guest if the operator allows guests (``--guests``, the
  default; ``--no-guests`` refuses them): recorded under the name it gave, as every
  unregistered network client always was (identity ``remote:NAME``; a person in a browser
  ``person:browser``), and never rated (the leaderboards count only games whose every seat
  is a registered name or a built-in player: hub.records.leaderboard).

Pure: the look-up is the caller's (`hub.records.identities.NameBook` off the event loop).
"""

from __future__ import annotations

import argparse

from hub.core.model.identity import remote_identity
from hub.core.model.values import PlayerInfo
from hub.records.identities import Checked, NameVerdict, identity_for

GUESTS = True
"""Whether a server admits guests unless told otherwise (docs/decisions.md)."""


class Refused(ValueError):
    """A name and token that may not play; the message says why (sent to the player)."""


def add_name_options(parser: argparse.ArgumentParser) -> None:
    """``--guests`` / ``--no-guests``."""
    parser.add_argument(
        "--guests",
        action=argparse.BooleanOptionalAction,
        default=GUESTS,
        help="let players without a registered name play, as unrated guests (default: yes; "
        "--no-guests: only the names of hub bots add and of the lobby page play)",
    )


def admit(
    checked: Checked, name: str, token: str | None, *, guests: bool, kind: str, spec: str
) -> PlayerInfo:
    """The player ``name`` (with ``token``) sits down as, ``kind`` and ``spec`` as its seat
    says (``remote``/``tcp``, ``person``/``web``); `Refused` if it may not (module doc)."""
    verdict, registered = checked.verdict, checked.registered
    if verdict is NameVerdict.OK:
        assert registered is not None
        return PlayerInfo(
            registered.name, kind, spec, identity_for(registered.kind, registered.name)
        )
    if verdict is NameVerdict.MISSING:
        raise Refused(f'"{name}" is a registered name: send its token ("token") to play as it')
    if verdict is NameVerdict.WRONG:
        raise Refused(f'wrong token for "{name}"')
    if token:
        raise Refused(
            f'"{name}" is not a registered name here (its operator registers bots: hub bots '
            "add NAME)" + ("; send no token to play as a guest" if guests else "")
        )
    if not guests and kind == "person":
        raise Refused('this server admits no guests: pick a name first ("Your name")')
    if not guests:
        raise Refused(
            f'"{name}" is not a registered name and this server admits no guests: ask its '
            "operator for a name and token (hub bots add NAME)"
        )
    if kind == "person":
        return PlayerInfo("browser", kind, spec, "person:browser")
    return PlayerInfo(name, kind, spec, remote_identity(name))
