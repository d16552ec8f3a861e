"""`hub.core.model.events.to_json` makes exactly the dict ``attrs.asdict`` with the events'
value serializer made (its own recursion is only faster): records stored before and after
it are the same bytes."""

from __future__ import annotations

import enum
import json
import math
from collections import namedtuple
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hub.core.model.events import (
    FaultInfo,
    GameEnded,
    GameRecord,
    GameStarted,
    MoveMade,
    RecordedMove,
    _serialise,
    to_json,
)
from hub.core.model.referee import Termination
from hub.core.model.values import PlayerInfo


class Colour(enum.Enum):
    RED = "red"
    PAIR = (1, 2)


class Rank(enum.IntEnum):
    ACE = 1


@attrs.frozen
class Piece:
    colour: Colour
    at: tuple[int, int]
    weight: float = 1.0


Point = namedtuple("Point", "x y")


def reference(value: Any) -> dict[str, Any]:
    """What `to_json` made before: ``attrs.asdict`` with the events' serializer."""
    data: dict[str, Any] = attrs.asdict(value, value_serializer=_serialise)
    return data


def record(initial: Any, moves: list[RecordedMove], **changes: Any) -> GameRecord:
    made = GameRecord(
        game_id="g1",
        game="toy",
        settings={"rows": 6, "opening": ("a", "b"), "ratio": math.inf},
        players=[PlayerInfo("a", "remote", "", "remote:a"), PlayerInfo("b")],
        time_controls=["60+1", "none"],
        initial_state=initial,
        moves=moves,
        final_state=moves[-1].state if moves else initial,
        scores=[1.0, 0.0],
        winners=[0],
        termination=Termination.NORMAL,
        fault=None,
        started_at=1.5,
        ended_at=2.5,
        thinking=[0.25, float("nan")],
    )
    return attrs.evolve(made, **changes)


STATES: list[Any] = [
    None,
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    [[".", "X", "O"], [".", ".", "."]],
    {"board": [[0, 1], [2, 3]], "to_move": 0, "scores": (1.5, -math.inf), "ok": True},
    {"pieces": [Piece(Colour.RED, (1, 2))], "colour": Colour.PAIR, "rank": Rank.ACE},
    {(1, 2): "tuple key", Colour.RED: "enum key", 3: "int key"},
    {"set": {1}, "frozen": frozenset({"x"}), "nan": float("nan")},
    [b"bytes", 1j, ...],
]


@pytest.mark.parametrize("state", STATES)
def test_a_record_is_what_attrs_asdict_made(state: Any) -> None:
    moves = [RecordedMove(0, "4", 0.5, state), RecordedMove(1, "3", math.inf, state)]
    fault = FaultInfo(1, Termination.TIMEOUT, "no move in time", "3")
    for value in (record(state, moves), record(state, [], fault=fault, detail="d")):
        assert to_json(value) == reference(value)
        assert type(to_json(value)["players"]) is type(reference(value)["players"]) is tuple


def test_what_asdict_cannot_make_raises_as_it_did() -> None:
    # a named tuple inside a view: asdict raised TypeError (the records writer reports the
    # game as one that cannot be recorded), and so does to_json
    value = record({"point": Point(1, 2)}, [])
    with pytest.raises(TypeError):
        reference(value)
    with pytest.raises(TypeError):
        to_json(value)


def test_events_carry_their_kind() -> None:
    state = {"board": [[0, 1]]}
    events = [
        GameStarted("g1", "toy", {"a": 1}, [PlayerInfo("a")], ["none"], state, 0, 1.0),
        MoveMade("g1", 1, 0, "4", state, 1, 0.5, [None, 59.5], 2.0),
        GameEnded("g1", record(state, []), 3.0),
    ]
    for event, kind in zip(events, ["started", "moved", "ended"], strict=True):
        data = to_json(event)
        assert data.pop("event") == kind
        assert data == reference(event)


def test_the_same_bytes_as_json() -> None:
    value = record(STATES[3], [RecordedMove(0, "4", 0.5, STATES[3])])
    dumped = json.dumps(to_json(value), separators=(",", ":"))
    assert dumped == json.dumps(reference(value), separators=(",", ":"))
    assert '"scores":[1.5,null]' in dumped  # a value inside a view is serialised too


JSONS = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(JSONS)
def test_any_view_is_made_as_attrs_asdict_made_it(state: Any) -> None:
    value = record(state, [RecordedMove(0, "4", 0.5, state)])
    made, expected = to_json(value), reference(value)
    # NaN is not equal to itself: compare the JSON texts (both keep a NaN they were given
    # where asdict keeps it: nowhere, a float that is not finite is None)
    assert json.dumps(made, sort_keys=False) == json.dumps(expected, sort_keys=False)
