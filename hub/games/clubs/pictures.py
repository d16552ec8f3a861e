"""Clubs' views and pictures (pure, standard library only): the JSON view of a table, its
text picture (records, ``hub games show``, the terminal) and its HTML picture (the web board).

A view is the shape of docs/architecture.md ("State views"): ``players``, ``round`` (from
0), ``hands`` (each seat's cards as texts, sorted S, C, D, H then rank), ``trick``,
``leader``, ``to_move``, ``scores``, ``winscore``, ``finished``. A hand that the viewer may
not see is ``null``, and then ``cards`` (each seat's number of cards) says how many it holds;
``seat`` is the viewer's seat in a seat's own view (docs/clubs.md, "Hidden hands").
Pictures are drawn from a view alone (and the players' names, where a caller knows them);
they say the game's own words: rounds from 1, seats A, B, C, D. Told the last card played
and the view before it (`last_played`), the HTML picture marks that card (class ``last``)
in the trick, or shows the trick it completed as the last trick.
"""

from __future__ import annotations

import functools

from hub.games.clubs.cards import CARD_TEXT, Card

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from hub.core.model.values import JSON
    from hub.games.clubs.rules import ClubsState

LETTERS = "ABCD"
"""Clubs names its seats A, B, C, D (docs/clubs.md)."""
SUITS = {
    "S": ("\u2660", "black"),
    "C": ("\u2663", "black"),
    "D": ("\u2666", "red"),
    "H": ("\u2665", "red"),
}


@functools.lru_cache(maxsize=1024)
def hand_texts(hand: tuple[Card, ...]) -> tuple[str, ...]:
    """A hand's cards as texts, sorted S, C, D, H then rank. Cached: a card changes one
    hand, so every view of a game repeats the other hands (a third of a view's cost)."""
    return tuple(CARD_TEXT[card] for card in sorted(hand))


def state_view(state: ClubsState) -> JSON:
    """The whole table, every hand shown: what clubhub publishes, and every view of a
    declared game's record once the game is over."""
    return {
        "players": state.players,
        "round": state.round,
        "hands": list(map(list, map(hand_texts, state.hands))),
        "trick": list(map(CARD_TEXT.__getitem__, state.trick)),
        "leader": state.leader,
        "to_move": state.to_move,
        "scores": list(state.scores),
        "winscore": state.winscore,
        "finished": state.finished,
    }


def seat_view(state: ClubsState, seat: int | None) -> JSON:
    """What ``seat`` sees (None: a spectator): its own hand only, every hand once the game
    is over; ``cards`` counts every hand."""
    shown = state.finished
    view: dict[str, JSON] = {
        "players": state.players,
        "round": state.round,
        "hands": [
            list(hand_texts(hand)) if shown or index == seat else None
            for index, hand in enumerate(state.hands)
        ],
        "cards": [len(hand) for hand in state.hands],
        "trick": list(map(CARD_TEXT.__getitem__, state.trick)),
        "leader": state.leader,
        "to_move": state.to_move,
        "scores": list(state.scores),
        "winscore": state.winscore,
        "finished": state.finished,
    }
    if seat is not None:
        view["seat"] = seat
    return view


def concealed(view: Mapping[str, Any]) -> JSON:
    """``view`` with every hand hidden (only counted), as a spectator of a live game sees it."""
    hands = view["hands"]
    counts = view.get("cards") or [len(hand or ()) for hand in hands]
    return {
        **view,
        "hands": [None] * len(hands),
        "cards": [int(count) for count in counts],
    }


def _count(view: Mapping[str, Any], seat: int) -> int:
    counts = view.get("cards")
    if counts is not None and seat < len(counts):
        return int(counts[seat])
    return len(view["hands"][seat] or ())


def _name(names: Sequence[str], seat: int) -> str:
    return names[seat] if seat < len(names) else LETTERS[seat]


# -- the text picture ----------------------------------------------------------------------


def clubs_lines(view: Mapping[str, Any], names: Sequence[str] = ()) -> list[str]:
    """The round (counted from 1, as the game says it; the view counts from 0), one line per
    seat (A, B, ...: its player's name if known, score, hand), then the trick on the table.
    ``L`` marks the leader, ``>`` the seat to move; a hidden hand is its number of cards."""
    leader, mover = view["leader"], view.get("to_move")
    lines = [f"Round {view['round'] + 1}, first to {view['winscore']}"]
    width = max((len(name) for name in names), default=0)
    for seat in range(view["players"]):
        marks = ("L" if seat == leader else " ") + (">" if seat == mover else " ")
        cards = view["hands"][seat]
        hand = f"({_count(view, seat)} cards)" if cards is None else " ".join(cards) or "-"
        name = f" {names[seat] if seat < len(names) else '':<{width}}" if names else ""
        lines.append(f" {marks}{LETTERS[seat]}{name} {view['scores'][seat]:>4}  {hand}")
    trick = " ".join(view["trick"])
    lines.append(f"  trick: {trick or '-'}" + ("  (finished)" if view.get("finished") else ""))
    return lines


# -- the HTML picture ----------------------------------------------------------------------


def card_words(text: str) -> str:
    """A card (its text in the protocol, ``TH``) as the pages write it everywhere, in the
    hands, the trick and the move list: the rank as people say it and the suit's symbol
    (``10\u2665``, ``A\u2660``). The wire, the terminal and the records keep ``TH``: it is
    what a person types and what the programs read."""
    rank, suit = text[:-1], text[-1:]
    symbol = SUITS.get(suit, (suit, "black"))[0]
    return ("10" if rank == "T" else rank) + symbol


def card_html(text: str, move: bool = False, last: bool = False) -> str:
    """A card as the pages write it (`card_words`) in its suit's colour; a card the viewer
    may play carries ``data-move`` (its text) to be clicked, the last card played the class
    ``last``."""
    from html import escape  # (here: html imports its entity table, which clubhub never needs)

    colour = SUITS.get(text[-1:], ("", "black"))[1]
    if last:
        colour += " last"
    shown = escape(card_words(text))
    if move:
        return f'<span class="card {colour} move" data-move="{escape(text)}">{shown}</span>'
    return f'<span class="card {colour}">{shown}</span>'


def playable(view: Mapping[str, Any], seat: int) -> set[str]:
    """The cards of ``seat``'s hand it may play now (none unless it is its turn)."""
    hand = view["hands"][seat]
    if hand is None or view.get("to_move") != seat:
        return set()
    trick = view["trick"]
    if trick:
        following = {card for card in hand if card[-1:] == str(trick[0])[-1:]}
        if following:
            return following
    return set(hand)


def last_played(
    view: Mapping[str, Any], before: Mapping[str, Any], move: str
) -> tuple[bool, tuple[int, list[str]] | None]:
    """Where the card ``move``, played from the view ``before``, is seen in ``view``: True
    if it ends the trick on the table; else the trick it completed (its leader and cards)."""
    trick = [str(card) for card in view["trick"]]
    if trick and trick[-1] == move:
        return True, None
    return False, (int(before["leader"]), [*map(str, before["trick"]), move])


def _trick_items(
    trick: Sequence[str], leader: int, count: int, names: Sequence[str], last: bool
) -> str:
    from html import escape

    return "".join(
        f'<li>{card_html(card, last=last and i == len(trick) - 1)} <span class="by">'
        f"{escape(_name(names, (leader + i) % count))}</span></li>"
        for i, card in enumerate(trick)
    )


def clubs_table(
    view: Mapping[str, Any],
    names: Sequence[str] = (),
    last: bool = False,
    last_trick: tuple[int, Sequence[str]] | None = None,
) -> str:
    """The trick in play order, each seat's score and hand: its cards if the view shows
    them, else their number (a live game's public page). In a seat's own view the cards it
    may play carry ``data-move``. ``last``: the trick's last card is the last move;
    ``last_trick``: the trick (leader, cards) the last move completed, shown with it marked."""
    from html import escape

    count = int(view["players"])
    leader = int(view["leader"])
    to_move = view.get("to_move")
    trick = [str(card) for card in view["trick"]]
    scores = [int(score) for score in view["scores"]]
    hands = list(view["hands"])
    own = view.get("seat")
    moves = playable(view, own) if isinstance(own, int) and 0 <= own < len(hands) else set()
    played = _trick_items(trick, leader, count, names, last)
    previous = ""
    if last_trick is not None:
        first, cards = last_trick
        items = _trick_items(list(cards), first, count, names, True)
        previous = f'<p class="last-trick">Last trick:</p><ol class="trick last-trick">{items}</ol>'

    rows = []
    for seat in range(count):
        hand = hands[seat] if seat < len(hands) else []
        if hand is None:
            cards = f'<span class="backs">{_count(view, seat)} cards</span>'
        else:
            mine = seat == own
            cards = (
                " ".join(card_html(str(card), mine and card in moves) for card in hand) or "&mdash;"
            )
        classes = "seat to-move" if to_move == seat else "seat"
        lead = " (leads)" if seat == leader else ""
        rows.append(
            f'<tr class="{classes}"><th>{escape(_name(names, seat))}{lead}</th>'
            f'<td class="score">{scores[seat] if seat < len(scores) else ""}</td>'
            f'<td class="hand">{cards}</td></tr>'
        )
    return (
        f'<div class="clubs"><p>Round {int(view["round"]) + 1}, playing to '
        f"{int(view['winscore'])}</p>"
        f'<ol class="trick">{played}</ol>{previous}'
        "<table><thead><tr><th>player</th><th>score</th><th>hand</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )
