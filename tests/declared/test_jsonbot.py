"""The JSON bot protocol: its messages, and whatever a bot sends over the wire (junk, NUL,
partial lines, huge lines, wrong types, out-of-range moves) ends as a declared fault."""

from __future__ import annotations

import json
import random

import pytest
import trio
import trio.testing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hub.core.io.lines import LineStream
from hub.core.model.clock import TimeControl
from hub.core.model.referee import Termination
from hub.core.model.values import PlayerInfo
from hub.core.play.jsonbot import MAX_LINE, BadHello, JsonCodec, parse_hello
from hub.core.play.match import Match
from hub.core.play.seats import BadMoveLine, LineSeat
from hub.declared.seats import RandomSeat
from hub.games.connect4 import ConnectFour

DECLARED_FAULTS = {
    Termination.MALFORMED,
    Termination.ILLEGAL_MOVE,
    Termination.DISCONNECT,
    Termination.TIMEOUT,
}


def test_hello_is_read_and_bounded() -> None:
    assert parse_hello('{"type":"hello","name":"bot"}').name == "bot"
    hello = parse_hello('{"type":"hello","name":"  a\\u0000b  ","opponent":"ai:3"}')
    assert (hello.name, hello.opponent) == ("ab", "ai:3")
    assert parse_hello('{"type":"hello","name":"' + "x" * 500 + '"}').name == "x" * 40
    for line in ("", "{", "[]", '{"type":"move"}', '{"type":"hello","name":3}', "\x00"):
        with pytest.raises(BadHello):
            parse_hello(line)


def test_a_reply_is_one_object_with_a_move_of_the_game() -> None:
    game = ConnectFour()
    codec = JsonCodec(game)
    state = game.start(random.Random(0))
    assert codec.parse_move(0, '{"move":"4"}', state) == 4
    assert codec.parse_move(0, '{"move":"8"}', state) == 8  # well formed: the referee refuses it
    for line in ('{"move":4}', '"4"', "4", '{"mv":"4"}', '{"move":"four"}', "nul\x00l"):
        with pytest.raises(BadMoveLine):
            codec.parse_move(0, line, state)


async def _play_against(data: bytes, close: bool) -> Match[object, object]:
    game = ConnectFour({"rows": 4, "columns": 4, "connect": 3})
    hub_end, bot_end = trio.testing.memory_stream_pair()
    seat = LineSeat(LineStream(hub_end, hub_end), JsonCodec(game), PlayerInfo("fuzz"))
    other = RandomSeat(game, random.Random(1), PlayerInfo("random", "ai"))
    match = Match(
        game,
        game.start(random.Random(0)),
        [seat, other],
        time_control=TimeControl(per_move=5),
    )

    async def bot() -> None:
        await bot_end.send_all(data)
        if close:
            await bot_end.send_eof()
        async for _ in bot_end:  # read whatever the hub says until it is done
            pass

    async with trio.open_nursery() as nursery:
        nursery.start_soon(bot)
        with trio.fail_after(60):
            await match.run()
        nursery.cancel_scope.cancel()
    return match  # type: ignore[return-value]


moves = st.one_of(
    st.integers(-5, 12).map(lambda n: json.dumps({"move": str(n)})),
    st.sampled_from(['{"move":4}', '{"move":null}', "[]", "{}", '{"move":"1","x":[1,2]}']),
    st.text(max_size=40),
)
wire = st.one_of(
    st.binary(max_size=200),
    st.lists(moves, max_size=12).map(lambda lines: "\n".join(lines).encode()),
    st.lists(moves, max_size=6).map(lambda lines: ("\n".join(lines) + "\n").encode() + b"\x00"),
    st.integers(MAX_LINE - 2, MAX_LINE * 3).map(lambda n: b"{" + b"x" * n + b"\n"),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=wire, close=st.booleans())
def test_whatever_a_bot_sends_ends_in_a_declared_fault_or_a_game(data: bytes, close: bool) -> None:
    match = trio.run(_play_against, data, close, clock=trio.testing.MockClock(autojump_threshold=0))
    result = match.result
    assert result is not None
    if result.fault is not None:
        assert result.fault.termination in DECLARED_FAULTS, result.fault
        assert result.fault.seat == 0
    else:
        assert result.outcome.termination is Termination.NORMAL
