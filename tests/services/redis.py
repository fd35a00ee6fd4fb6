"""A redis-server of the tests' own: a free loopback port, a temporary directory, no disk.

``redis_server()`` starts one and stops it (SIGTERM, then SIGKILL);
``redis_process()`` gives one a test may kill and start again; the test
session starts one (tests/server/cluster/conftest.py) and every test that
needs it empties it first. Where the binary is missing, :data:`MISSING` says
so in one line and the tests that need it are skipped.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.services import started_in

BINARY = shutil.which("redis-server") or next(
    (p for p in ("/usr/bin/redis-server",) if os.path.exists(p)), None
)
MISSING = None if BINARY else "redis-server is not installed (Debian: apt-get install redis-server)"
START_S = 10.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until_serving(
    process: subprocess.Popen[Any], port: int, what: str, ping: bytes = b"", pong: bytes = b""
) -> None:
    """Until ``process`` accepts on ``port`` (and answers ``ping`` with ``pong``, if given);
    RuntimeError if it ends or takes longer than START_S."""
    deadline = time.monotonic() + START_S
    while True:
        with (
            contextlib.suppress(OSError),
            socket.create_connection(("127.0.0.1", port), timeout=0.2) as s,
        ):
            if not ping:
                return
            s.sendall(ping)
            if s.recv(16).startswith(pong):
                return
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not start on port {port}")
        time.sleep(0.05)


def stop(process: subprocess.Popen[Any]) -> None:
    """SIGTERM, and SIGKILL if it has not ended 5 s later."""
    process.terminate()
    try:
        process.wait(5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class RedisServer:
    """A redis-server on one loopback port, in a temporary directory, that a test may
    kill and start again empty on the same port (nothing is ever saved to disk)."""

    def __init__(self, tmp: Path) -> None:
        assert BINARY is not None, MISSING
        self.dir = tmp
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        assert BINARY is not None, MISSING
        self.process = subprocess.Popen(
            [BINARY, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.dir), "--protected-mode", "yes"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        wait_until_serving(self.process, self.port, "redis-server", b"PING\r\n", b"+PONG")

    def kill(self) -> None:
        """SIGKILL: everything it held is gone."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)
            self.process = None


@contextlib.contextmanager
def redis_process() -> Iterator[RedisServer]:
    """A started :class:`RedisServer`, stopped when the block ends."""
    with tempfile.TemporaryDirectory(prefix="cs-redis-") as tmp:
        started_in(Path(tmp))  # the session's end checks that nothing runs there any more
        server = RedisServer(Path(tmp))
        try:
            server.start()
            yield server
        finally:
            server.stop()


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """A running redis-server's URL (redis://127.0.0.1:PORT/0) until the block ends."""
    with redis_process() as server:
        yield server.url
