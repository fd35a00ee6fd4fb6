"""Failover benchmark: SIGKILL of the node owning rooms mid-match, until they play again.

    python -m benchmarks.bench_failover [--kills 20] [--rooms 4]

All on 127.0.0.1 with a redis-server of its own (tests/services/redis.py) and
one database: a surviving node stays up; each round starts a new node (the
victim), opens ``--rooms`` two-player rooms on it whose second player is
connected to the survivor, plays three turns in each, then SIGKILLs the
victim. For each room it times, from the kill, the survivor's player getting
the new owner's ``room_state`` (the room rebuilt from the database) and then
the ``placed`` of the placement that player sent right after the kill (the
room playing again). Prints p50 and max over every room of every kill, and
the slowest room of each kill: what a player waits for before the game goes
on. The lease is 4 s and nodes look every 0.5 s, so about 4 to 5 s is the
design's own floor.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from tests.server.cluster.nodes import cluster_node
from tests.server.live import Client, Live, connect_over
from tests.services.redis import redis_server


async def player(url: str, name: str, n: int) -> Client:
    """A new player, from a loopback address of its own (the per-address quotas)."""
    live = Live(url, "", None)  # type: ignore[arg-type]
    client = await connect_over(live, source=f"127.77.{n // 200}.{2 + n % 200}")
    welcome = await client.hello(name)
    assert welcome["type"] == "welcome", welcome
    return client


async def one_room(victim_url: str, survivor_url: str, n: int) -> tuple[Client, Client, str]:
    owner = await player(victim_url, f"owner{n}", 2 * n)
    other = await player(survivor_url, f"other{n}", 2 * n + 1)
    await owner.send(type="create_room", name=f"fo{n}", seats=2)
    room_id = (await owner.until("room_state"))["room"]["id"]
    await other.send(type="join_room", room_id=room_id)
    await other.until("room_state")
    for c in (owner, other):
        await c.send(type="ready", room_id=room_id)
    for _ in range(3):
        for c in (owner, other):
            card = await c.until("card")
            await c.send(type="place", room_id=room_id, turn=card["turn"], cell=card["legal"][0])
            await c.until("placed")
    return owner, other, room_id


async def back_in_play(other: Client, room_id: str, killed: float) -> tuple[float, float]:
    """Seconds from the kill to the new owner's snapshot, and to the next ``placed``."""
    card = await other.until("card", timeout=30)
    await other.send(type="place", room_id=room_id, turn=card["turn"], cell=card["legal"][0])
    state = await other.until("room_state", timeout=30)
    rebuilt = time.monotonic() - killed
    if not any(m["type"] == "placed" and m["turn"] == card["turn"] for m in other.log):
        await other.until("placed", timeout=30)
    assert state["you"]["turn"] >= card["turn"]
    return rebuilt, time.monotonic() - killed


async def run(args: argparse.Namespace) -> int:
    rebuilt: list[float] = []
    playing: list[float] = []
    worst: list[float] = []
    with tempfile.TemporaryDirectory(prefix="cribsquares-failover-") as tmp, redis_server() as url:
        db = Path(tmp) / "cluster.db"
        with cluster_node(db, url, "survivor") as survivor:
            for kill in range(args.kills):
                with cluster_node(db, url, f"victim{kill}") as victim:
                    rooms = await asyncio.gather(
                        *(
                            one_room(victim.live.url, survivor.live.url, kill * args.rooms + i)
                            for i in range(args.rooms)
                        )
                    )
                    victim.process.kill()
                    killed = time.monotonic()
                    times = await asyncio.gather(
                        *(back_in_play(other, room_id, killed) for _, other, room_id in rooms)
                    )
                for owner, other, _ in rooms:
                    await other.close()
                    await owner.close()
                rebuilt += [t[0] for t in times]
                playing += [t[1] for t in times]
                worst.append(max(t[1] for t in times))
                print(f"kill {kill + 1}: every room playing again after {worst[-1]:.2f} s",
                      file=sys.stderr, flush=True)  # fmt: skip
    print(
        f"{args.kills} kills of a node owning {args.rooms} rooms each "
        f"({len(playing)} rooms): from SIGKILL to the room rebuilt by another node "
        f"p50 {statistics.median(rebuilt):.2f} s, max {max(rebuilt):.2f} s; to the room "
        f"playing again (a placement acknowledged) p50 {statistics.median(playing):.2f} s, "
        f"max {max(playing):.2f} s; the slowest room of each kill p50 "
        f"{statistics.median(worst):.2f} s"
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_failover", description=__doc__)
    p.add_argument("--kills", type=int, default=20, help="nodes killed, one after another (20)")
    p.add_argument("--rooms", type=int, default=4, help="rooms on each killed node (4)")
    args = p.parse_args(argv)
    if not (1 <= args.kills <= 200 and 1 <= args.rooms <= 50):
        p.error("--kills 1..200, --rooms 1..50")
    return asyncio.run(run(args))


if __name__ == "__main__":
    raise SystemExit(main())
