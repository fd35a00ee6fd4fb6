"""Write batches on SQLite and on PostgreSQL, in the same run.

    python -m benchmarks.bench_storage [--matches 4000] [--batches 300] [--players 64]
                                       [--seconds 10]

Both stores are fresh: a SQLite file in a temporary directory (WAL,
``synchronous=NORMAL``, as the server runs it) and a PostgreSQL cluster of its
own (tests/services/postgres.py: on loopback, a temporary directory, stopped at
the end; ``fsync`` on and ``synchronous_commit`` on, as the server runs it:
every commit reaches the disk before it is acknowledged). On each, in turn:

1. **batches**: ``--batches`` transactions of 1, 8 and 64 placements each,
   written the way the storage writer writes one batch (one transaction,
   ``executemany``, one commit) on the writer's own connection. Per batch
   size: placements per second, µs of this process's CPU per placement
   written (``time.process_time``: the client side, the server's; for
   PostgreSQL also ``db_cpu``, its own processes' CPU per placement, read from
   /proc), and p50/p99 of a batch's commit latency (begin to committed).
2. **through the store**: ``--players`` tasks, each placing one card at a time
   and awaiting its acknowledgement (``Storage.persist``), for ``--seconds``:
   the writer batches what arrives together. Placements per second, µs CPU per
   placement (the whole process: event loop and writer thread), ack p50/p99.

The placements are 16 per player and match, in ``--matches`` matches of two
players, stored first with their rooms and series as the server stores them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from protocol.fields import Pace, Visibility
from protocol.rooms import RoomOrigin
from server.events import CardPlaced, Event, MatchBegan, PlayerRecord, RoomOpened, SeriesBegan
from server.storage import Storage, StoredPlayer
from server.storage.backends import backend_for
from server.storage.writes import write_batch
from tests.processes import descendants
from tests.services import postgres

CELLS = [f"{c}{r}" for r in "1234" for c in "abcd"]


def cluster_cpu_s(cluster: postgres.Cluster | None) -> float:
    """CPU seconds used so far by the cluster's processes (the postmaster and its
    children: the backends of our connections live through a phase); 0 for SQLite."""
    if cluster is None:
        return 0.0
    root = int((cluster.data / "postmaster.pid").read_text().split()[0])
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for p in (root, *(c.pid for c in descendants(root))):
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def opening(match: int) -> list[Event]:
    """A room, its series and its match, two players: what precedes the placements."""
    room, mid = f"r{match}", f"m{match}"
    players = (PlayerRecord(f"a{match}", f"a{match}"), PlayerRecord(f"b{match}", f"b{match}"))
    return [
        RoomOpened(room, room, Visibility.PUBLIC, Pace.LOCKSTEP, 2, 30_000, 300_000,
                   players[0].id, "c" * 64, 0),
        SeriesBegan(mid, room, 1, False, Pace.LOCKSTEP, RoomOrigin.ROOM, players, 0, "s" * 64),
        MatchBegan(mid, room, Pace.LOCKSTEP, tuple((i, p, p.id) for i, p in enumerate(players)),
                   "seed", "secret", "c" * 64, "c" * 64, 30_000, 300_000, 0, mid),
    ]  # fmt: skip


def placements(matches: int) -> Iterator[CardPlaced]:
    """Every placement of ``matches`` matches, turn by turn."""
    for turn in range(1, 17):
        for m in range(matches):
            for who in ("a", "b"):
                yield CardPlaced(f"m{m}", f"{who}{m}", turn, CELLS[turn - 1], "5H", 900, False,
                                 turn * 1000)  # fmt: skip


async def prepare(target: str, matches: int) -> None:
    storage = await Storage.open(target, opened_ms=0)
    # The rooms' creators signed in first, as people do.
    await asyncio.gather(*(
        storage.create_player(StoredPlayer(f"a{m}", f"a{m}", False, False), f"h{m}", 0)
        for m in range(matches)
    ))  # fmt: skip
    await storage.persist([e for m in range(matches) for e in opening(m)])
    await storage.close()


def batches(
    target: str,
    source: Iterator[CardPlaced],
    size: int,
    count: int,
    cluster: postgres.Cluster | None,
) -> dict[str, float]:
    """``count`` transactions of ``size`` placements on the writer's connection."""
    backend = backend_for(target)
    writer = backend.open_writer()
    latencies = []
    try:
        cpu, wall, db = time.process_time(), time.perf_counter(), cluster_cpu_s(cluster)
        for _ in range(count):
            batch = [[next(source)] for _ in range(size)]
            start = time.perf_counter()
            with writer.transaction() as tx:
                write_batch(tx, batch, backend.unique_violation)
            latencies.append(time.perf_counter() - start)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        db = cluster_cpu_s(cluster) - db
    finally:
        writer.close()
    n = size * count
    return {
        "placements_per_s": n / wall,
        "cpu_us_per_placement": cpu / n * 1e6,
        "db_cpu_us_per_placement": db / n * 1e6,
        "commit_p50_ms": percentile(latencies, 0.5) * 1000,
        "commit_p99_ms": percentile(latencies, 0.99) * 1000,
    }


async def through_store(
    target: str,
    source: Iterator[CardPlaced],
    players: int,
    seconds: float,
    cluster: postgres.Cluster | None,
) -> dict[str, float]:
    storage = await Storage.open(target, opened_ms=0)
    acks: list[float] = []
    stop = time.perf_counter() + seconds

    async def player() -> None:
        while time.perf_counter() < stop:
            event = next(source, None)
            if event is None:
                return
            start = time.perf_counter()
            await storage.persist([event])
            acks.append(time.perf_counter() - start)

    cpu, wall, db = time.process_time(), time.perf_counter(), cluster_cpu_s(cluster)
    await asyncio.gather(*(player() for _ in range(players)))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    db = cluster_cpu_s(cluster) - db
    await storage.close()
    return {
        "placements_per_s": len(acks) / wall,
        "cpu_us_per_placement": cpu / max(1, len(acks)) * 1e6,
        "db_cpu_us_per_placement": db / max(1, len(acks)) * 1e6,
        "ack_p50_ms": percentile(acks, 0.5) * 1000,
        "ack_p99_ms": percentile(acks, 0.99) * 1000,
    }


def measure(
    name: str, target: str, args: argparse.Namespace, cluster: postgres.Cluster | None = None
) -> dict[str, Any]:
    asyncio.run(prepare(target, args.matches))
    found: dict[str, Any] = {}
    source = placements(args.matches)  # each placement is written once, in turn order
    for size in (1, 8, 64):
        found[f"batch {size}"] = batches(target, source, size, args.batches, cluster)
    found["store"] = asyncio.run(through_store(target, source, args.players, args.seconds, cluster))
    print(f"\n{name}")
    for what, figures in found.items():
        print(f"  {what:<9} " + "  ".join(f"{k} {v:,.2f}" for k, v in figures.items()))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=4_000)
    parser.add_argument("--batches", type=int, default=300)
    parser.add_argument("--players", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench-storage-") as tmp:
        results["sqlite"] = measure("SQLite (WAL, synchronous=NORMAL)", str(Path(tmp) / "db"), args)
    reason = postgres.unavailable()
    if reason is not None:
        print(f"\nPostgreSQL: skipped ({reason})")
        return
    with postgres.cluster(fsync=True) as cluster:
        name = cluster.create_database("bench")
        results["postgresql"] = measure(
            "PostgreSQL 15 (fsync on, synchronous_commit on)", cluster.url(name), args, cluster
        )
    print("\nPostgreSQL against SQLite, same run (ratio of placements per second):")
    for what in results["sqlite"]:
        lite, pg = results["sqlite"][what], results["postgresql"][what]
        rate = pg["placements_per_s"] / lite["placements_per_s"]
        cpu = pg["cpu_us_per_placement"] / lite["cpu_us_per_placement"]
        print(f"  {what:<9} {rate:.2f} x the placements per second, {cpu:.2f} x the CPU")


if __name__ == "__main__":
    main()
