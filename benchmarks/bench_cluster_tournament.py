"""A duplicate tournament of server bots on a cluster of nodes: where its tables play, and the CPU.

    python -m benchmarks.bench_cluster_tournament [--nodes 3] [--players 48] [--deals 3]
        [--tree CHECKOUT]

All on 127.0.0.1: a redis-server of its own (tests/services/redis.py), one
SQLite file shared by ``--nodes`` ``cribsquares serve --redis`` processes (the
first up coordinates: it runs the director). A host signs in to the
coordinator, creates a duplicate field of ``--deals`` deals (race pace),
enters ``--players`` greedy server bots (one table each per deal), starts it
and waits for the final standings. Prints the wall time from the start to the
final standings, each node's CPU time over it (the node and its bot workers:
its process group, from /proc), the tables each node took from the
coordinator (its ``owner`` announcements on the broadcast channel), and the
cluster's CPU per table. ``--tree`` runs the nodes from another checkout (an
earlier commit's worktree, say) with this Python, for a before and after in
one sitting.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

import redis
import websockets

from benchmarks.bench_tournament import free_port
from tests.services.redis import redis_server

ROOT = Path(__file__).resolve().parents[1]
TICK = os.sysconf("SC_CLK_TCK")


def group_cpu_s(pgid: int) -> float:
    """CPU seconds (user + system) of every live process in process group ``pgid``."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:  # pgrp; utime and stime follow at 11 and 12
            total += int(fields[11]) + int(fields[12])
    return total / TICK


@contextlib.contextmanager
def node(tree: Path, db: Path, url: str, node_id: str, logs: Path) -> Iterator[tuple[int, str]]:
    """A node run from ``tree``: its process id (and group) and WebSocket address."""
    port = free_port()
    serve = ("serve", "--port", str(port), "--db", str(db), "--redis", url, "--node-id", node_id)
    with open(logs / f"{node_id}.log", "w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "client_cli", *serve],
            cwd=tree,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            start_new_session=True,
        )
        try:
            assert process.stdout is not None
            line = process.stdout.readline()
            assert "ws://" in line, line
            yield process.pid, f"ws://127.0.0.1:{port}/ws"
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, 15)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, 9)
                process.wait(timeout=5)


async def tournament(url: str, players: int, deals: int) -> float:
    """Host, fill, start and finish a duplicate field of greedy bots; its wall time."""
    async with websockets.connect(url, max_size=2**24) as ws:

        async def until(kind: str) -> dict[str, object]:
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 120))
                if message["type"] in (kind, "error"):
                    assert message["type"] == kind, message
                    return dict(message)

        await ws.send(json.dumps({"type": "hello", "protocol": 1, "name": "host"}))
        await until("welcome")
        await ws.send(json.dumps({"type": "create_tournament", "name": "bench", "rounds": deals,
                                  "pace": "race", "deal_clock_ms": 300_000,
                                  "max_players": players}))  # fmt: skip
        tid = (await until("tournament"))["tournament"]["id"]  # type: ignore[index]
        await ws.send(json.dumps({"type": "add_tournament_bot", "tournament_id": tid,
                                  "strategy": "greedy", "count": players}))  # fmt: skip
        await until("tournament")
        started = time.perf_counter()
        await ws.send(json.dumps({"type": "manage_tournament", "tournament_id": tid,
                                  "action": "start"}))  # fmt: skip
        for _ in range(100_000):  # bounded: every update of a tournament of a few rounds
            info: dict[str, object] = (await until("tournament"))["tournament"]  # type: ignore[assignment]
            if info["status"] in ("finished", "cancelled"):
                break
        assert info["status"] == "finished", info["status"]
        return time.perf_counter() - started


async def run(args: argparse.Namespace) -> int:
    tree = Path(args.tree).resolve() if args.tree else ROOT
    with (
        tempfile.TemporaryDirectory(prefix="cribsquares-ctour-") as tmp,
        redis_server() as url,
        contextlib.ExitStack() as stack,
    ):
        folder = Path(tmp)
        nodes = [
            stack.enter_context(node(tree, folder / "cluster.db", url, f"n{i}", folder))
            for i in range(args.nodes)
        ]
        await asyncio.sleep(1.5)  # every node has seen the others
        client = redis.asyncio.Redis.from_url(url, decode_responses=True)
        pubsub = client.pubsub(ignore_subscribe_messages=True)
        await pubsub.subscribe("cs:all")
        taken: Counter[str] = Counter()

        async def listen() -> None:
            while True:
                message = await pubsub.get_message(timeout=1.0)
                if message is not None and message.get("type") == "message":
                    payload = json.loads(message["data"])
                    if payload.get("k") == "owner" and str(payload["key"]).startswith("room:"):
                        taken[payload["from"]] += 1

        listener = asyncio.create_task(listen())
        before = [group_cpu_s(pid) for pid, _ in nodes]
        try:
            wall = await tournament(nodes[0][1], args.players, args.deals)
        except BaseException:  # the nodes' logs say why
            for log in sorted(folder.glob("*.log")):
                print(f"--- {log.name}\n{log.read_text()[-3000:]}", file=sys.stderr)
            raise
        cpu = [group_cpu_s(pid) - b for (pid, _), b in zip(nodes, before, strict=True)]
        listener.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await listener
        await pubsub.aclose()  # type: ignore[no-untyped-call]
        await client.aclose()
    tables = args.players * args.deals
    per_node = ", ".join(
        f"n{i} {c:.2f} s CPU, {taken.get(f'n{i}', 0)} tables taken" for i, c in enumerate(cpu)
    )
    print(
        f"{args.nodes} nodes, {args.players} greedy bots, {args.deals} deals ({tables} tables), "
        f"tree {tree.name}: wall {wall:.2f} s; {per_node}; cluster CPU {sum(cpu):.2f} s, "
        f"{1000 * sum(cpu) / tables:.1f} ms per table; coordinator (n0) "
        f"{1000 * cpu[0] / tables:.1f} ms per table"
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_cluster_tournament",
                                description=__doc__)  # fmt: skip
    p.add_argument("--nodes", type=int, default=3)
    p.add_argument("--players", type=int, default=48)
    p.add_argument("--deals", type=int, default=3)
    p.add_argument("--tree", help="run the nodes from this checkout (default: this one)")
    args = p.parse_args(argv)
    if not (1 <= args.nodes <= 8 and 2 <= args.players <= 512 and 1 <= args.deals <= 10):
        p.error("--nodes 1..8, --players 2..512, --deals 1..10")
    return asyncio.run(run(args))


if __name__ == "__main__":
    raise SystemExit(main())
