"""A real PostgreSQL server for the tests of tests/pg: Debian's ``postgresql`` package, started
once per test run in a temporary directory (`postgres_server`), with a new empty database for
each test that asks for one (`pg_url`).

The server runs as the user ``postgres`` when the tests run as root (PostgreSQL refuses root),
listens on no TCP address, only on a unix socket in its directory (on a port number that is
free, which names the socket), and is stopped (as ``pg_ctl stop -m immediate`` would) and
removed at the end of the run. Absent (no ``initdb`` under /usr/lib/postgresql/*/bin, nor
``$HUB_POSTGRES_BIN``), the tests skip with the reason, or fail when ``HUB_REQUIRE_POSTGRES=1``
(CI sets it).
"""

from __future__ import annotations

import itertools
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.parse
from collections.abc import Iterator

import attrs
import pytest

from tests.pg.servers import Server, start_server

REQUIRE = "HUB_REQUIRE_POSTGRES"


def postgres_bin() -> pathlib.Path | None:
    """The directory of ``initdb`` and ``pg_ctl``: ``$HUB_POSTGRES_BIN``, else the newest
    Debian version under /usr/lib/postgresql."""
    chosen = os.environ.get("HUB_POSTGRES_BIN")
    if chosen:
        return pathlib.Path(chosen) if (pathlib.Path(chosen) / "initdb").exists() else None
    found = sorted(
        pathlib.Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda path: int(path.parent.parent.name) if path.parent.parent.name.isdigit() else 0,
    )
    return found[-1].parent if found else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@attrs.define
class PostgresServer:
    """A running server: its unix socket's directory and port, and the superuser ``hub``."""

    directory: pathlib.Path
    port: int
    names: Iterator[int] = attrs.field(factory=itertools.count)

    def url(self, database: str) -> str:
        """``postgresql://hub@%2Ftmp%2F...:PORT/DATABASE``: the socket's directory as the host,
        percent-encoded (libpq's URL form; no ``?`` or ``&``, which a shell would read)."""
        host = urllib.parse.quote(str(self.directory), safe="")
        return f"postgresql://hub@{host}:{self.port}/{database}"

    def new_database(self) -> str:
        """A new empty database; its URL."""
        import psycopg

        name = f"t{next(self.names)}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as admin:
            admin.execute(f"CREATE DATABASE {name}".encode())
        return self.url(name)


def _as_postgres(command: list[str]) -> list[str]:
    """``command`` as the user postgres when we are root (PostgreSQL will not run as root)."""
    return ["runuser", "-u", "postgres", "--", *command] if os.getuid() == 0 else command


def _run(command: list[str]) -> None:
    subprocess.run(_as_postgres(command), check=True, capture_output=True, timeout=120)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    bin_dir = postgres_bin()
    if bin_dir is None:
        message = "PostgreSQL is not installed (apt-get install postgresql)"
        if os.environ.get(REQUIRE) == "1":
            pytest.fail(f"{message} and {REQUIRE}=1")
        pytest.skip(message)
    directory = pathlib.Path(tempfile.mkdtemp(prefix="hub-postgres-"))
    if os.getuid() == 0:
        shutil.chown(directory, "postgres", "postgres")
    data = directory / "data"
    log = directory / "server.log"
    port = _free_port()
    started = False
    try:
        initdb = [str(bin_dir / "initdb"), "-D", str(data), "-U", "hub", "-A", "trust"]
        _run([*initdb, "-E", "UTF8", "--locale=C", "--no-sync"])
        settings = f"-p {port} -k {directory} -c listen_addresses='' -c fsync=off"
        pg_ctl = [str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(log), "-o", settings]
        _run([*pg_ctl, "-w", "-t", "60", "start"])
        started = True
        yield PostgresServer(directory, port)
    except subprocess.CalledProcessError as exc:
        logged = log.read_text(errors="replace") if log.exists() else ""
        pytest.fail(f"PostgreSQL did not start: {exc.stderr.decode(errors='replace')}{logged}")
    finally:
        if started:
            _stop(data)
        shutil.rmtree(directory, ignore_errors=True)


def _stop(data: pathlib.Path) -> None:
    """Stop the server as ``pg_ctl stop -m immediate`` does, by SIGQUIT to its postmaster, and
    wait (bounded) until it is gone. No child process: the last test of the run, in whose
    tear-down this runs, may be a unit-layer test, which may start none (tests/conftest.py)."""
    try:
        pid = int((data / "postmaster.pid").read_text().split()[0])
        os.kill(pid, signal.SIGQUIT)
    except (OSError, ValueError, IndexError):
        return
    deadline = time.monotonic() + 30.0
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.02)  # not our child: only polling tells when it is gone


@pytest.fixture
def pg_url(postgres_server: PostgresServer) -> str:
    """The URL of a new empty database of its own for the test."""
    return postgres_server.new_database()


@pytest.fixture
def servers(pg_url: str) -> Iterator[tuple[Server, Server]]:
    """Two ``hub serve connect4 --db URL --web 0`` processes on the test's database, stopped
    (SIGINT) at the end unless the test killed them."""
    yield from _two(pg_url, site=False)


@pytest.fixture
def sites(pg_url: str) -> Iterator[tuple[Server, Server]]:
    """Two ``hub serve --db URL --web 0`` processes (every game at one address), as
    `servers`."""
    yield from _two(pg_url, site=True)


def _two(pg_url: str, *, site: bool, mixed: bool = False) -> Iterator[tuple[Server, Server]]:
    """Two processes (``mixed``: the second the other kind), stopped at the end."""
    started: list[Server] = []
    try:
        started.append(start_server(pg_url, site=site))
        started.append(start_server(pg_url, site=site != mixed))
        yield started[0], started[1]
    finally:
        for server in started:
            if server.process.poll() is None:
                server.process.send_signal(signal.SIGINT)
                try:
                    server.process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    server.process.kill()
                    server.process.wait()
            assert server.process.stderr is not None
            server.process.stderr.close()
