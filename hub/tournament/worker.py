"""A worker process of ``hub match --concurrency K``: whole games in, records out, as JSON lines.

``python -m hub.tournament.worker KIT`` (KIT: a game's name, or ``module:name`` of a
`TournamentKit`) reads one request per line on stdin, ``{"spec": GameSpec}``, plays that game with
the kit and answers one line on stdout: ``{"index": i, "record": to_json(record)}``, or
``{"index": i, "error": "why"}`` when the kit failed (the game is then aborted). Requests come
one at a time. End of input ends the worker, and also cancels a game in progress (the match
was stopped, or the process that ran it died), as does SIGTERM; the kit reaps its players
either way. Anything the kit prints on stdout goes to stderr, so it cannot corrupt the answers.

The pieces the Ray backend shares are here too: `load_kit`, the `GameSpec` JSON form and
`play_to_json`.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
import trio

from hub.core.commands.plugin import lazy_object, load_failure
from hub.core.commands.running import run_program
from hub.core.io.lines import LineError, LineStream
from hub.core.model.bus import EventBus
from hub.core.model.events import to_json
from hub.core.play.kit import GameSpec, TournamentKit, kit_session
from hub.declared.plugin import discover_games

MAX_LINE = 64 * 1024 * 1024
"""The longest answer (one game's record as JSON)."""


class KitError(Exception):
    """No match kit by that name."""


class KitLoadFailed(KitError):
    """The game's plug-in is installed but fails to load: the message says why."""


def load_kit(ref: str) -> TournamentKit:
    """The `TournamentKit` of the game named ``ref``, or of the object at ``module:name``."""
    if ":" in ref:
        try:
            kit: TournamentKit = lazy_object(ref)()
        except (ImportError, AttributeError, ValueError) as exc:
            raise KitError(f"cannot load the match kit {ref}: {exc}") from None
        return kit
    plugins = discover_games()
    plugin = plugins.get(ref)
    failure = load_failure(ref) if plugin is None else None
    if failure is not None:
        raise KitLoadFailed(failure.words())
    if plugin is None or plugin.match is None:
        offered = [name for name, plugin in plugins.items() if plugin.match is not None]
        raise KitError(
            f"no game {ref!r} offers matches (games with matches: {', '.join(offered) or 'none'})"
        )
    found: TournamentKit = plugin.match()
    return found


def spec_to_json(spec: GameSpec) -> dict[str, Any]:
    return attrs.asdict(spec)


def spec_from_json(data: Mapping[str, Any]) -> GameSpec:
    return GameSpec(
        game_id=str(data["game_id"]),
        settings=dict(data.get("settings") or {}),
        players=tuple(str(player) for player in data["players"]),
        opening=data.get("opening"),
        index=int(data.get("index", 0)),
        seed=None if data.get("seed") is None else int(data["seed"]),
        chance_seed=None if data.get("chance_seed") is None else int(data["chance_seed"]),
    )


def describe_error(exc: BaseException) -> str:
    """``Type: message`` of an error, or of each error in a group."""
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(describe_error(inner) for inner in exc.exceptions)
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


async def play_to_json(kit: TournamentKit, spec: GameSpec) -> dict[str, Any]:
    """One game: ``{"index", "record"}``, or ``{"index", "error"}`` if the kit failed."""
    try:
        record = await kit.play(spec, EventBus())
    except Exception as exc:
        return {"index": spec.index, "error": describe_error(exc)}
    return {"index": spec.index, "record": to_json(record)}


async def _play_until_eof(
    lines: LineStream, kit: TournamentKit, spec: GameSpec
) -> dict[str, Any] | None:
    """The game's answer, or None if input ended (or anything arrived) before it was over."""
    answer: list[dict[str, Any]] = []
    async with trio.open_nursery() as nursery:

        async def play() -> None:
            answer.append(await play_to_json(kit, spec))
            nursery.cancel_scope.cancel()

        async def watch() -> None:
            with contextlib.suppress(LineError):
                await lines.receive_line()  # nothing may come during a game
            nursery.cancel_scope.cancel()

        nursery.start_soon(play)
        nursery.start_soon(watch)
    return answer[0] if answer else None


async def serve(kit: TournamentKit, lines: LineStream) -> None:
    """Answer requests until end of input or SIGTERM, all in one session of the kit
    (`hub.core.play.kit.kit_session`: a chess engine serves every game of this worker)."""
    with trio.open_signal_receiver(signal.SIGTERM) as signals:
        async with kit_session(kit), trio.open_nursery() as nursery:

            async def until_terminated() -> None:
                async for _ in signals:
                    nursery.cancel_scope.cancel()

            nursery.start_soon(until_terminated)
            while True:
                try:
                    line = await lines.receive_line()
                except LineError:
                    break
                try:
                    spec = spec_from_json(json.loads(line)["spec"])
                except (ValueError, KeyError, TypeError) as exc:
                    await lines.send_line(json.dumps({"error": f"bad request: {exc}"}))
                    continue
                answer = await _play_until_eof(lines, kit, spec)
                if answer is None:
                    break
                lines.queue_line(json.dumps(answer))
                await lines.flush_eagerly()  # (this loop is the one writer of the answers)
            nursery.cancel_scope.cancel()


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        sys.stderr.write("usage: python -m hub.tournament.worker KIT\n")
        return 2
    try:
        kit = load_kit(args[0])
    except KitError as exc:
        sys.stderr.write(f"hub match worker: {exc}\n")
        return 2
    warm: Callable[[], None] | None = getattr(kit, "warm", None)
    if warm is not None:  # the match is still being set up: import what its games need
        warm()
    answers = os.dup(1)
    os.dup2(2, 1)  # stray prints of a kit or a player go to stderr, not into the answers
    sys.stdout = sys.stderr

    async def run() -> None:
        lines = LineStream(
            trio.lowlevel.FdStream(os.dup(0)),
            trio.lowlevel.FdStream(answers),
            max_line=MAX_LINE,
            ignore_send_errors=True,
        )
        await serve(kit, lines)

    status = run_program(run)
    return status if isinstance(status, int) else 0


if __name__ == "__main__":
    sys.exit(main())
