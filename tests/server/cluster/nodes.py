"""Cluster nodes as real `cribsquares serve --redis` processes on one database."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.server.live import Live, server_process
from tests.waiting import Watched, tail


@dataclass
class Node:
    id: str
    process: subprocess.Popen[str]
    live: Live
    port: int
    log: Path

    def watched(self) -> Watched:
        """For a bounded wait (tests/waiting.py): its death fails the wait at once."""
        return Watched(self.id, self.process, self.log)

    async def exited(self, within: float) -> int:
        """Its exit code, waited for without holding up the event loop: a stopping
        node closes its connections, and the test's clients must be able to answer
        its close frames meanwhile (blocked in ``process.wait`` they could not, and
        the node's stop took as long as its close timeouts). After ``within``
        seconds, a failure saying so, with its last lines of output."""
        try:
            return await asyncio.to_thread(self.process.wait, within)
        except subprocess.TimeoutExpired:
            pytest.fail(f"waited {within:g} s for {self.id} to exit{tail(self.log)}",
                        pytrace=False)  # fmt: skip


@contextlib.contextmanager
def cluster_node(
    db: Path | str,
    redis_url: str,
    node_id: str,
    port: int = 0,
    logs: Path | None = None,
    options: tuple[str, ...] = (),
) -> Iterator[Node]:
    """A node on the store ``db`` (a SQLite file, or a postgresql:// URL), with the
    options ``options`` of ``serve`` besides; its log (warnings and errors) in
    ``NODE_ID.log`` in ``logs`` (default: beside the file)."""
    extra = ("--redis", redis_url, "--node-id", node_id, "--grace", "30", *options)
    folder = logs or Path(db).parent
    with (
        open(folder / f"{node_id}.log", "a") as log,
        server_process(db, port, extra, stderr=log) as (process, live),
    ):
        port_of = int(live.url.split(":")[2].split("/")[0])
        yield Node(node_id, process, live, port_of, folder / f"{node_id}.log")


@contextlib.contextmanager
def cluster(
    db: Path | str,
    redis_url: str,
    count: int = 3,
    logs: Path | None = None,
    options: tuple[str, ...] = (),
) -> Iterator[list[Node]]:
    with contextlib.ExitStack() as stack:
        yield [
            stack.enter_context(cluster_node(db, redis_url, f"node{i}", logs=logs, options=options))
            for i in range(count)
        ]
