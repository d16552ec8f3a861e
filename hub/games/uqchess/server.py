"""``uqchessserver`` / ``hub serve uqchess``: the UQChess server (shared/specs/uqchess.md).

The program (`main`): its engines, the records and the web view that watch its games, and
its exit statuses. The server, by concern:

* `hub.games.uqchess.options`: the command line (`parse_args`, pure) and exit statuses;
* `hub.games.uqchess.pairing`: matchmaking by colour (pure);
* `hub.games.uqchess.seats`: a client, a game, the seats of the core match loop;
* `hub.games.uqchess.service`: `ChessService`, the server's behaviour (no sockets);
* `hub.games.uqchess.sockets`: `serve` and one client's connection.
"""

from __future__ import annotations

import logging
import signal
import sys
from collections.abc import Sequence

import attrs
import trio

from hub.chess.engine_client import EnginePool, EngineStartError, find_engine
from hub.core.commands.running import run_program
from hub.core.commands.usage import help_text, show_help
from hub.core.io.limits import freeze_start_up
from hub.core.io.listen import ListenError, bound_port, open_listeners
from hub.core.io.output import Output
from hub.core.io.programs import which_program
from hub.core.io.serverlog import configure_logging, log_games
from hub.core.io.stdin import ensure_standard_fds
from hub.core.io.text import wants_help
from hub.core.model.bus import EventBus
from hub.games.uqchess.options import (
    EXIT_ENGINE_DIED,
    EXIT_ENGINE_START,
    EXIT_LISTEN,
    EXIT_USAGE,
    PROGRAM,
    USAGE,
    ServerOptions,
    help_parser,
    parse_args,
)
from hub.games.uqchess.sockets import serve
from hub.records.recording import environment_record_path, open_recording, report
from hub.web.options import ENVIRONMENT as WEB_ENVIRONMENT
from hub.web.options import web_from_environment


def builtin_engine() -> list[str] | None:
    """``hub engine`` (a plug-in's UCI engine tool), if one is installed."""
    from hub.core.commands.plugin import discover

    if not any("engine" in plugin.tools for plugin in discover().values()):
        return None
    hub = which_program("hub")
    return None if hub is None else [hub, "engine"]


async def _main(options: ServerOptions, err: Output, fallback: bool) -> int:
    try:
        listeners = await open_listeners(options.port)
    except ListenError as exc:
        err.line(f'{PROGRAM}: can\'t start listening on port "{options.port}"')
        if fallback:  # hub serve uqchess: why, and what to do (the spec fixes only line 1)
            err.line(f"{PROGRAM}: {exc}; {exc.hint}" if exc.hint else f"{PROGRAM}: {exc}")
        return EXIT_LISTEN
    try:
        argv = find_engine()
        if argv is None and fallback and (argv := builtin_engine()) is not None:
            err.line(f"{PROGRAM}: no Stockfish found, using the built-in engine (hub engine)")
            err.flush()
        if argv is None:
            raise EngineStartError("no engine found")
        pool = await EnginePool.start(argv, options.engines)
    except EngineStartError:
        for listener in listeners:
            await listener.aclose()
        err.line(f"{PROGRAM}: cannot start communication with chess engine")
        return EXIT_ENGINE_START
    try:
        status = await _serve_watched(listeners, pool, options, err, strict=fallback)
    finally:  # the pool reaps its engines once it runs; a Ctrl-C may come before it does
        with trio.CancelScope(shield=True):
            for engine in pool.engines:
                await engine.stop()
    if status == EXIT_ENGINE_DIED:
        err.line(f"{PROGRAM}: chess engine exited unexpectedly")
    return status


async def _serve_watched(
    listeners: Sequence[trio.SocketListener],
    pool: EnginePool,
    options: ServerOptions,
    err: Output,
    *,
    strict: bool,
) -> int:
    """Print the port and `serve` with what watches its games: the web view (``options.web``,
    live games and those saved in the records database; its URL goes on stderr after the
    port) and the records database (``options.record``, opened before the port is printed;
    one line on stderr after the port and the URL if it cannot be, and the server goes on
    without it). A web port that cannot be bound is exit 1 for ``hub serve uqchess``
    (``strict``) and only a warning for ``uqchessserver`` with ``$HUB_WEB``, whose exit
    statuses a spec fixes."""
    events = EventBus()
    async with trio.open_nursery() as nursery:
        problem = await open_recording(nursery, events, options.record, prog=PROGRAM)
        err.line(str(bound_port(listeners)))
        err.flush()
        if options.web is not None:
            from hub.web.records import RecordsReader
            from hub.web.server import start_web  # only the web view needs the web stack

            started = await start_web(
                nursery,
                events,
                options.web,
                err=err,
                prog=PROGRAM,
                records=RecordsReader.of(options.record),
                allowed_hosts=options.allowed_hosts,
            )
            if started is None and strict:
                for listener in listeners:
                    await listener.aclose()
                for engine in pool.engines:
                    await engine.stop()
                nursery.cancel_scope.cancel()
                return 1
        err.flush()  # before the records' line, if any
        report(problem)
        stop_log = log_games(events, logging.getLogger("hub.games.uqchess"))
        try:
            status = await serve(listeners, pool, events=events, limits=options.limits)
        finally:
            stop_log()
        nursery.cancel_scope.cancel()
    return status


def main(argv: Sequence[str] | None = None, *, fallback: bool = False) -> int:
    """The ``uqchessserver`` console script; ``hub serve uqchess`` with ``fallback=True``
    (when no Stockfish is found, use ``hub engine`` instead of exiting 4)."""
    args = list(sys.argv[1:] if argv is None else argv)
    err = Output(2)
    if wants_help(args):
        return show_help(help_text(help_parser(hub_options=fallback)))
    options = parse_args(args, hub_options=fallback)
    if options is None:
        err.line(USAGE)
        err.flush()
        return EXIT_USAGE
    if options.web is None:
        try:
            options = attrs.evolve(options, web=web_from_environment())
        except ValueError as exc:
            err.line(f"{PROGRAM}: ignoring ${WEB_ENVIRONMENT}: {exc}")
    if not fallback:  # uqchessserver records only when asked
        options = attrs.evolve(options, record=environment_record_path())
    if not fallback:  # uqchessserver dies of SIGINT like the original, which ignores it
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    ensure_standard_fds()
    configure_logging("uqchess", options.log_level)  # uqchessserver: None, silent
    freeze_start_up()
    try:
        if fallback:  # hub serve uqchess, our own command: exit 130/143, engines reaped
            return run_program(_main, options, err, fallback, cancel_on_signal=True)
        return trio.run(_main, options, err, fallback)
    finally:
        err.flush()


if __name__ == "__main__":
    sys.exit(main())
