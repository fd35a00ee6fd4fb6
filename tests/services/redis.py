"""A redis-server of the tests' own: a free loopback port, a temporary directory, no disk.

``redis_server()`` starts one and stops it (SIGTERM, then SIGKILL); the test
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

BINARY = shutil.which("redis-server") or next(
    (p for p in ("/usr/bin/redis-server",) if os.path.exists(p)), None
)
MISSING = None if BINARY else "redis-server is not installed (Debian: apt-get install redis-server)"
START_S = 10.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """A running redis-server's URL (redis://127.0.0.1:PORT/0) until the block ends."""
    assert BINARY is not None, MISSING
    with tempfile.TemporaryDirectory(prefix="cs-redis-") as tmp:
        port = free_port()
        process = subprocess.Popen(
            [BINARY, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", tmp, "--protected-mode", "yes"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + START_S
            while True:
                with (
                    contextlib.suppress(OSError),
                    socket.create_connection(("127.0.0.1", port), timeout=0.2) as s,
                ):
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        break
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"redis-server did not start on port {port}")
                time.sleep(0.05)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            process.terminate()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
