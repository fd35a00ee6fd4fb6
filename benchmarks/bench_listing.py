"""A listing and every other player's ping with 10,000 rooms open, against an idle server.

    python -m benchmarks.bench_listing [--rooms 10000] [--samples 200] [--pollers 4]

All on loopback, bounded in time, cleaning up after itself. It starts the real
server (``python -m client_cli serve``, a temporary database, quotas raised by a
``--config`` file so that one machine may open the rooms), then measures, in
the same run and the same way:

1. **idle**: the server with no room. Median and p90, in milliseconds, of
   ``list_rooms`` (WebSocket round trip, first page), ``GET /api/rooms`` and a
   ``ping`` round trip of other players, the last while ``--pollers`` clients
   fetch ``/api/rooms`` back to back (the attack of four pollers that pushed
   every player's ping to 292 ms before listings were paged).
2. **one page**: the same with 100 public waiting rooms open (a page, 50 by
   default, is then full: its content costs what it costs from here on).
3. **loaded**: the same with ``--rooms`` public waiting rooms open, opened by
   ``--hosts`` players who stay connected.

It prints the three and the differences; a listing whose cost grew with the
number of rooms would show between the last two at once.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
import websockets

from benchmarks.bench_server import HOST, Child

CONFIG = """\
rate_per_second = 100000.0
rate_burst = 100000
rooms_per_address = "1000000/s"
rooms_per_account = "1000000/s"
new_players_per_address = "1000000/s"
new_guests_per_address = "1000000/s"
signins_per_address = "1000000/s"
http_per_address = "1000000/s"
max_waiting_rooms_per_player = 0
max_open_rooms_per_player = 0
max_waiting_rooms_per_address = 0
max_open_rooms_per_address = 0
max_waiting_rooms = 0
max_connections_per_address = 10000
"""


def ms(seconds: float) -> float:
    return seconds * 1000.0


async def signed_in(url: str, name: str) -> websockets.ClientConnection:
    ws = await websockets.connect(url, max_size=None)
    await ws.send(json.dumps({"type": "hello", "protocol": 1, "guest": True, "name": name}))
    while json.loads(await ws.recv())["type"] != "welcome":
        pass
    return ws


async def ask(ws: websockets.ClientConnection, message: dict[str, Any], answer: str) -> float:
    """Send ``message``; seconds until the reply of type ``answer`` with its ref."""
    ref = f"r{time.monotonic_ns()}"
    started = time.perf_counter()
    await ws.send(json.dumps({**message, "ref": ref}))
    while True:
        reply = json.loads(await ws.recv())
        if reply.get("ref") == ref:
            assert reply["type"] == answer, reply
            return time.perf_counter() - started


async def open_rooms(url: str, rooms: int, hosts: int, done: int = 0) -> None:
    """``rooms`` more public waiting rooms, opened by ``hosts`` players who stay."""
    if rooms <= 0:
        return
    per_host = -(-rooms // hosts)

    async def host(n: int) -> None:
        ws = await signed_in(url, f"host{done}-{n}")
        mine = min(per_host, rooms - n * per_host)
        sent = 0
        while sent < mine:
            batch = min(50, mine - sent)
            for i in range(batch):
                name = f"room {n}-{sent + i}"
                await ws.send(json.dumps({"type": "create_room", "name": name, "ref": "c"}))
            got = 0
            while got < batch:
                reply = json.loads(await ws.recv())
                if reply.get("ref") == "c":
                    assert reply["type"] == "room_state", reply
                    got += 1
            sent += batch
        # The hosts stay connected (a dropped creator's seat would expire).
        hold.append(ws)

    hold: list[websockets.ClientConnection] = []
    await asyncio.gather(*(host(n) for n in range(hosts) if n * per_host < rooms))
    HELD.extend(hold)


HELD: list[websockets.ClientConnection] = []
PAGE = 100  # one full page of the listing (the most a page holds)


async def measure(url: str, http: str, samples: int, pollers: int, players: int) -> dict[str, Any]:
    ws = await signed_in(url, "reader")
    listing = [await ask(ws, {"type": "list_rooms"}, "rooms") for _ in range(samples)]
    async with aiohttp.ClientSession() as session:
        fetches = []
        for _ in range(samples):
            started = time.perf_counter()
            async with session.get(http + "/api/rooms") as reply:
                body = await reply.json()
            fetches.append(time.perf_counter() - started)
        total = body.get("total", len(body["rooms"]))
        assert len(body["rooms"]) <= 50 or "total" not in body
        others = [await signed_in(url, f"player{n}") for n in range(players)]
        stop = asyncio.Event()

        async def poll() -> int:
            count = 0
            while not stop.is_set():
                async with session.get(http + "/api/rooms") as reply:
                    await reply.read()
                count += 1
            return count

        quiet: list[float] = []
        for n in range(samples):
            quiet.append(await ask(others[n % players], {"type": "ping"}, "pong"))
        polling = [asyncio.create_task(poll()) for _ in range(pollers)]
        pings: list[float] = []

        async def pinger(other: websockets.ClientConnection) -> None:
            for _ in range(-(-samples // players)):
                pings.append(await ask(other, {"type": "ping"}, "pong"))
                await asyncio.sleep(0.02)

        started = time.perf_counter()
        await asyncio.gather(*(pinger(o) for o in others))
        elapsed = time.perf_counter() - started
        stop.set()
        polls = sum(await asyncio.gather(*polling))
        for o in (ws, *others):
            await o.close()
    return {
        "rooms": total,
        "list_rooms": listing,
        "GET /api/rooms": fetches,
        "ping": quiet,
        "ping (pollers on)": pings,
        "polls_per_s": polls / elapsed,
    }


def summary(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return ms(statistics.median(ordered)), ms(ordered[int(len(ordered) * 0.9) - 1])


async def run(args: argparse.Namespace) -> int:
    stages = [0, PAGE, args.rooms]  # idle, one full page, the load
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-listing-") as tmp:
        config = Path(tmp) / "server.toml"
        config.write_text(CONFIG)
        argv = [sys.executable, "-m", "client_cli", "serve", "--host", HOST, "--port", "0",
                "--db", str(Path(tmp) / "listing.db"), "--config", str(config)]  # fmt: skip
        server = Child(argv, r"http://[\d.]+:(\d+)")
        try:
            url = f"ws://{HOST}:{server.port}/ws"
            http = f"http://{HOST}:{server.port}"
            opened = 0
            for rooms in stages:
                started = time.perf_counter()
                await open_rooms(url, rooms - opened, args.hosts, opened)
                took = time.perf_counter() - started
                opened = rooms
                result = await measure(url, http, args.samples, args.pollers, args.players)
                result["rss_mib"] = server.rss_kib() / 1024
                result["opening_s"] = took
                results.append(result)
            for ws in HELD:
                await ws.close()
        finally:
            server.stop()
    titles = [f"{r['rooms']} rooms" for r in results]
    print("medians (p90) in ms; every stage measured in this run, on this server")
    print(
        f"{'':22}" + "".join(f"{t:>20}" for t in titles) + f"{'last - idle':>14}{'last - page':>14}"
    )
    for key in ("list_rooms", "GET /api/rooms", "ping", "ping (pollers on)"):
        cells, medians = "", []
        for r in results:
            p50, p90 = summary(r[key])
            medians.append(p50)
            cells += f"{p50:11.2f} ({p90:6.2f})"
        print(f"{key:22}{cells}{medians[-1] - medians[0]:+14.2f}{medians[-1] - medians[1]:+14.2f}")
    print(f"{'polls of /api/rooms/s':22}" + "".join(f"{r['polls_per_s']:20.0f}" for r in results))
    print(f"{'server RSS, MiB':22}" + "".join(f"{r['rss_mib']:20.1f}" for r in results))
    print(f"rooms opened in {sum(r['opening_s'] for r in results):.1f} s")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=10_000)
    parser.add_argument("--hosts", type=int, default=20, help="players opening the rooms")
    parser.add_argument("--samples", type=int, default=200, help="measurements of each kind")
    parser.add_argument("--pollers", type=int, default=4, help="clients polling /api/rooms")
    parser.add_argument("--players", type=int, default=10, help="players pinging")
    args = parser.parse_args(argv)
    return asyncio.run(run(args))


if __name__ == "__main__":
    raise SystemExit(main())
