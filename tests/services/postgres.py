"""A PostgreSQL cluster of our own, for tests and benchmarks: started, used, stopped.

``initdb`` and ``pg_ctl`` from the PostgreSQL installed on the machine (Debian's
``postgresql`` package puts them in /usr/lib/postgresql/VERSION/bin;
``CRIBSQUARES_PG_BIN`` names another directory), on a temporary directory, a
free loopback port, its unix socket in that directory, trust authentication
for the superuser ``postgres`` on loopback only. PostgreSQL refuses to run as
root: as root the cluster runs as the ``postgres`` user (``runuser``), in a
directory that user owns.

:func:`unavailable` says in one line why no cluster can be started here (None:
one can). :func:`cluster` is a context manager: the cluster is stopped
(``pg_ctl stop -m immediate``) and its directory removed however the block
ends. Nothing of it outlives the block.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tests.services import started_in

SUPERUSER = "postgres"
RUN_AS = "postgres"  # as root, the cluster's processes run as this user
START_TIMEOUT_S = 60


def bindir() -> Path | None:
    """The directory of initdb and pg_ctl: CRIBSQUARES_PG_BIN, else the newest
    /usr/lib/postgresql/*/bin, else wherever PATH finds initdb."""
    given = os.environ.get("CRIBSQUARES_PG_BIN")
    candidates = [Path(given)] if given else []
    installed = Path("/usr/lib/postgresql")
    if installed.is_dir():
        versions = sorted(
            (p for p in installed.iterdir() if p.name.replace(".", "").isdigit()),
            key=lambda p: float(p.name),
            reverse=True,
        )
        candidates += [v / "bin" for v in versions]
    found = shutil.which("initdb")
    if found:
        candidates.append(Path(found).parent)
    for c in candidates:
        if (c / "initdb").is_file() and (c / "pg_ctl").is_file():
            return c
    return None


def _as_root() -> bool:
    return os.geteuid() == 0


def unavailable() -> str | None:
    """Why no cluster can be started here, in one line; None if one can."""
    if bindir() is None:
        return "PostgreSQL is not installed (no initdb/pg_ctl; Debian: apt-get install postgresql)"
    if _as_root():
        try:
            pwd.getpwnam(RUN_AS)
        except KeyError:
            return f"running as root and there is no {RUN_AS!r} user to run PostgreSQL as"
        if shutil.which("runuser") is None:
            return "running as root and runuser is missing"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Cluster:
    """A running cluster: its port, and databases made in it."""

    root: Path
    port: int
    bin: Path
    options: str  # pg_ctl's -o: the port and the settings
    _names: Iterator[int] = field(default_factory=itertools.count)

    @property
    def data(self) -> Path:
        return self.root / "data"

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{dbname}"

    def psql(self, sql: str, dbname: str = "postgres") -> str:
        """Run ``sql`` (one statement or several) with psql; its output."""
        done = subprocess.run(
            [str(self.bin / "psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
             "-d", self.url(dbname), "-c", sql],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"psql failed: {done.stderr.strip()}")
        return done.stdout

    def create_database(self, prefix: str = "test") -> str:
        """A new, empty database (from template0); its name."""
        name = f"{prefix}_{os.getpid()}_{next(self._names)}"
        self.psql(f"CREATE DATABASE {name} TEMPLATE template0 ENCODING 'UTF8'")
        return name

    def drop_database(self, name: str) -> None:
        self.psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def stop(self, mode: str = "immediate") -> None:
        """Stop the server (``fast``: as an operator's restart; ``immediate``: a crash)."""
        done = _pg_ctl(self.bin, self.root, ["-m", mode, "-w", "stop"])
        if done.returncode != 0:
            raise RuntimeError(f"pg_ctl stop failed: {done.stderr.strip()}")

    def start(self) -> None:
        """Start it again, on the same port and data."""
        done = _pg_ctl(self.bin, self.root, ["-w", "-t", str(START_TIMEOUT_S), "-o",
                                             self.options, "start"])  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"pg_ctl start failed: {done.stderr.strip()}")

    def running(self) -> bool:
        return _pg_ctl(self.bin, self.root, ["status"]).returncode == 0


def _pg_ctl(pg: Path, root: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    return _run(
        [str(pg / "pg_ctl"), "-D", str(root / "data"), "-l", str(root / "log"), *args],
        timeout=START_TIMEOUT_S + 10,
    )


def _run(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    if _as_root():
        argv = ["runuser", "-u", RUN_AS, "--", *argv]
    return subprocess.run(argv, capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload, no-any-return]


@contextlib.contextmanager
def cluster(*, fsync: bool = True, settings: dict[str, str] | None = None) -> Iterator[Cluster]:
    """Start a cluster, yield it, stop it (``-m immediate``) and remove its files.

    ``fsync=False`` is for tests that never crash the machine: commits are as
    acknowledged as ever, only not forced to the disk (faster). ``settings``:
    more ``-c name=value`` for the server.
    """
    reason = unavailable()
    if reason is not None:
        raise RuntimeError(reason)
    pg = bindir()
    assert pg is not None
    root = Path(tempfile.mkdtemp(prefix="cribsquares-pg-"))
    started_in(root)
    if _as_root():
        entry = pwd.getpwnam(RUN_AS)
        os.chown(root, entry.pw_uid, entry.pw_gid)
    started: Cluster | None = None
    try:
        done = _run(
            [str(pg / "initdb"), "-D", str(root / "data"), "-U", SUPERUSER, "--auth=trust",
             "-E", "UTF8", "--no-sync", "--locale=C"],
            timeout=120,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"initdb failed: {done.stderr.strip() or done.stdout.strip()}")
        options = {
            "listen_addresses": "127.0.0.1",
            "unix_socket_directories": str(root),
            "fsync": "on" if fsync else "off",
            "max_connections": "200",
            **(settings or {}),
        }
        for attempt in range(5):  # a free port may be taken before the server binds it
            port = free_port()
            opts = f"-p {port} " + " ".join(f"-c {k}={v}" for k, v in options.items())
            done = _pg_ctl(pg, root, ["-w", "-t", str(START_TIMEOUT_S), "-o", opts, "start"])
            if done.returncode == 0:
                started = Cluster(root, port, pg, opts)
                break
            if attempt == 4:
                log = (root / "log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"pg_ctl start failed: {done.stderr.strip()}\n{log}")
        assert started is not None
        yield started
    finally:
        if started is not None and started.running():
            _pg_ctl(pg, root, ["-m", "immediate", "-w", "stop"])
        shutil.rmtree(root, ignore_errors=True)
