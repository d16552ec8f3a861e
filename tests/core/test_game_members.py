"""The declaration stays small: `Game`'s public members, facets included, are at most 30
(issue 24: it had 54, plus the instance's ``settings`` and ``seat_count``), and each facet
is small enough to read at once."""

from __future__ import annotations

from hub.core.play.game import Ai, Game, Hidden, MatchPlan, MatchSetup, Pictures, Programs, Series
from tests.core.toys import Nim

MOST_MEMBERS = 30
MOST_FACET_MEMBERS = 10


def public(obj: object) -> set[str]:
    return {name for name in dir(obj) if not name.startswith("_")}


def test_the_game_class_has_at_most_30_public_members() -> None:
    members = public(Game) | public(Nim())  # the instance's own: settings, seat_count
    assert len(members) <= MOST_MEMBERS, sorted(members)
    assert {"settings", "seat_count", "pictures", "ai", "hidden", "setup"} <= members


def test_the_counting_sees_a_member_too_many() -> None:
    """The count above can fail: a class with extra members is counted over the limit."""

    class Crowded(Nim):
        pass

    for index in range(MOST_MEMBERS):
        setattr(Crowded, f"extra_{index}", index)
    assert len(public(Crowded) | public(Crowded())) > MOST_MEMBERS


def test_each_facet_is_small() -> None:
    for facet in (Pictures, Ai, Hidden, Programs, MatchSetup, Series, MatchPlan):
        assert len(public(facet)) <= MOST_FACET_MEMBERS, (facet.__name__, sorted(public(facet)))


def test_a_game_without_facets_gets_the_defaults() -> None:
    game = Nim()
    assert game.ai is None and game.hidden is None and game.series is None
    assert game.pictures.text({"pile": 3}) == '{\n "pile": 3\n}'
    assert game.programs.kinds == {} and game.programs.program_kind == "program"
    assert game.seat_name(0) == "Seat 1" and game.seat_name(1, view={"pile": 2}) == "Seat 2"
