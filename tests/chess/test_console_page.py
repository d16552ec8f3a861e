"""The ``--gui`` page's seat (`hub.games.chess.console.gui.ConsolePage`) without a browser:
what its snapshot offers, which moves it takes, and that a move from the page is a command
line run as if typed (or dropped when the game moved on before it ran)."""

from __future__ import annotations

import trio

from hub.core.io.output import LinesOutput
from hub.core.model.bus import EventBus
from hub.games.chess.console.gui import ConsolePage, PageCommand
from hub.games.chess.console.session import open_console


class Printed:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.output = LinesOutput(self.lines.extend)


async def test_a_page_move_is_the_typed_command_and_a_stale_one_is_dropped() -> None:
    bus = EventBus()
    page = ConsolePage(bus, token="k" * 24)
    out, err = Printed(), Printed()
    async with open_console(bus=bus) as console:
        assert page.submit("e2e4") == "the console has ended"  # not attached yet
        page.attach(console)
        assert page.snapshot()["your_turn"] is False
        assert page.submit("e2e4").startswith("no game in progress")
        await console.handle("game human computer1")
        snapshot = page.snapshot()
        assert snapshot["your_turn"] and "e2e4" in snapshot["legal"]
        assert "e4" in snapshot["legal_words"]
        assert [p["used_ms"] is not None for p in snapshot["players"]] == [True, True]
        assert page.find("k" * 24) is page and page.find("x" * 24) is None
        assert page.submit("e2e5") == "illegal move"
        assert page.submit("nonsense") == "not a move"
        assert page.submit("e2e4") is None
        assert page.submit("d2d4") == "a move is already on its way"
        command = page.commands.receive_nowait()
        assert command == PageCommand("move e2 e4", console.match.game_id, 0)  # type: ignore[union-attr]
        await page.run_command(command, out.output, err.output)
        typed = await console.handle("board")  # the same position, typed
        assert out.lines == typed[: len(out.lines)]
        assert err.lines == ["move e2 e4 (from the page)"]
        snapshot = page.snapshot()
        assert snapshot["moves"] == ["1. e4"] and not snapshot["your_turn"]
        assert "type move at the terminal" in snapshot["waiting"]
        assert page.submit("e7e5").startswith("Black is a computer")
        # a move sent for a position the terminal has moved on from is not played
        await console.handle("move")
        assert page.submit("d2d4") is None
        stale = page.commands.receive_nowait()
        await console.handle("undo")  # back to White's first move: ply 0 again, a new game id
        await page.run_command(stale, out.output, err.output)
        assert page.snapshot()["error"] == "the position changed before your move arrived"
        assert err.lines == ["move e2 e4 (from the page)"]
        assert page.snapshot()["moves"] == []
        page.attach(None)
    assert page.snapshot()["waiting"] == "The console has ended."


async def test_the_page_resigns_for_the_human_and_follows_the_score() -> None:
    bus = EventBus()
    page = ConsolePage(bus)
    out, err = Printed(), Printed()
    async with open_console(bus=bus) as console:
        page.attach(console)
        await console.handle("game computer1 human")
        assert page.resign() is None
        await page.run_command(page.commands.receive_nowait(), out.output, err.output)
        assert out.lines == ["White wins!"]
        snapshot = page.snapshot()
        assert snapshot["over"] and snapshot["follows"]
        assert snapshot["status"] == ["White wins!"]
        assert snapshot["score"] == "Score: White 1, Black 0"
        assert [p["winner"] for p in snapshot["players"]] == [True, False]
        assert page.resign().startswith("no game in progress")
        await console.handle("game computer1 computer2")
        assert page.resign() == "no person plays this game"
        await trio.lowlevel.checkpoint()
