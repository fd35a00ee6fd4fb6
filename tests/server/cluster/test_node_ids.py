"""Each node of a cluster has its own id: a second node started with the id of a node
that is running is refused, in one line, and the running node plays on; a node
restarted under its own id right after it was killed waits its old liveness out and
joins. Nodes of two versions of the messages between nodes do not share a cluster:
the second is refused, in one line."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import redis

from server.shell.cluster.bus import VERSION
from tests.server.cluster.nodes import cluster_node
from tests.server.live import ROOT, Client, Live, signed_in


def refused(db: Path, redis_url: str, node_id: str) -> tuple[int, str, str]:
    """Start a node ``node_id`` that should not join: its exit code, stdout and stderr
    (killed, and then failing the test's checks, if it is still running after 30 s)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "client_cli", "serve", "--port", "0", "--db", str(db),
         "--redis", redis_url, "--node-id", node_id],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return process.returncode, out, err


async def still_serves(live: Live) -> None:
    """The running node is untouched: a player signs in and is answered."""
    player = await signed_in(live, "ada")
    await player.still_alive()
    await player.close()


async def test_a_second_node_with_a_running_nodes_id_is_refused(
    tmp_path: Path, redis_url: str
) -> None:
    db = tmp_path / "cluster.db"
    with cluster_node(db, redis_url, "twin") as running:
        started = time.monotonic()
        code, out, err = refused(db, redis_url, "twin")
        assert code != 0, out
        assert "ws://" not in out  # it never served
        assert "another node of this cluster is running as 'twin'" in err, err
        assert "Traceback" not in err, err
        # it waited out a key that could have been a killed node's, then gave up
        assert 3.0 <= time.monotonic() - started < 20.0
        await still_serves(running.live)


async def test_a_node_killed_and_started_again_under_its_id_joins(
    tmp_path: Path, redis_url: str
) -> None:
    db = tmp_path / "cluster.db"
    with cluster_node(db, redis_url, "phoenix", logs=tmp_path) as first:
        first.process.kill()
        first.process.wait()
    started = time.monotonic()
    with cluster_node(db, redis_url, "phoenix", logs=tmp_path) as again:
        assert time.monotonic() - started < 10.0  # at most its old key's expiry, waited
        client = await Client.connect(again.live)
        welcome = await client.hello("bea")
        assert welcome["type"] == "welcome"
        await client.close()


async def test_a_node_of_another_version_is_refused(tmp_path: Path, redis_url: str) -> None:
    db = tmp_path / "cluster.db"
    with cluster_node(db, redis_url, "elder", logs=tmp_path) as running:
        with redis.Redis.from_url(redis_url, decode_responses=True) as r:
            assert r.hget("cs:versions", "elder") == str(VERSION)
            r.hset("cs:versions", "elder", "0")  # as a node of the version before would be
        code, out, err = refused(db, redis_url, "newer")
        assert code != 0 and "ws://" not in out
        said = f"speaks version {VERSION} of the messages between nodes and 'elder' version 0"
        assert said in err, err
        assert "cannot share a cluster" in err and "Traceback" not in err, err
        await still_serves(running.live)
