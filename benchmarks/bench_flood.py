"""A flood of sign-ins, rooms and tournaments from many loopback addresses, for a fixed
time, with the server's default limits: its memory and database must level off.

    python -m benchmarks.bench_flood [--duration 60] [--addresses 64] [--per-address 2]

All on loopback (127.0.0.2, 127.0.0.3, ...: each a remote address of its own to
the server), bounded in time, cleaning up after itself. It starts the real
server (``python -m client_cli serve``, a temporary database, every limit at
its default), then for ``--duration`` seconds ``--per-address`` flooders per
address loop as fast as the server lets them: connect, sign in as a new guest
(or register a new name, one time in four), create a public room, create a
tournament, join other rooms as a spectator and leave them, list the rooms,
fetch ``/api/rooms``, disconnect. Every answer is counted (accepted, or the
refusal's code).

It prints the server's RSS and database size (the file and its WAL) before,
every ``--every`` seconds during, and 10 s after the flood; then it restarts the
server on the same database and prints them again (what is restored at a
start). Growth in the last half of the flood against the first half says
whether they levelled off.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import websockets

from benchmarks.bench_server import HOST, Child


def db_kib(db: Path) -> int:
    return sum(p.stat().st_size for p in db.parent.glob(db.name + "*")) // 1024


def health(http: str) -> dict[str, Any]:
    with urllib.request.urlopen(http + "/healthz", timeout=10) as reply:
        data: dict[str, Any] = json.loads(reply.read())
    return data


class Flood:
    def __init__(self, url: str, http: str, deadline: float) -> None:
        self.url = url
        self.http = http
        self.deadline = deadline
        self.outcomes: Counter[tuple[str, str]] = Counter()  # (what, accepted or code)
        self.rooms: list[str] = []  # public rooms seen, to spectate

    def note(self, what: str, reply: dict[str, Any]) -> dict[str, Any]:
        self.outcomes[(what, reply.get("code", "ok") if reply["type"] == "error" else "ok")] += 1
        return reply

    async def connect(self, source: str) -> websockets.ClientConnection | None:
        host, port = self.url.split("/")[2].split(":")
        sock = socket.socket()
        sock.bind((source, 0))
        sock.setblocking(False)
        try:
            await asyncio.get_running_loop().sock_connect(sock, (host, int(port)))
            return await websockets.connect(self.url, sock=sock, open_timeout=10)
        except (
            OSError,
            websockets.InvalidStatus,
            websockets.InvalidHandshake,
            TimeoutError,
        ) as exc:
            status = getattr(getattr(exc, "response", None), "status_code", type(exc).__name__)
            self.outcomes[("connect", str(status))] += 1
            sock.close()
            await asyncio.sleep(0.2)
            return None

    async def ask(
        self, ws: websockets.ClientConnection, what: str, **message: Any
    ) -> dict[str, Any]:
        ref = f"{what}{random.random()}"
        await ws.send(json.dumps({**message, "ref": ref}))
        while True:
            reply = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if reply.get("ref") == ref:
                return self.note(what, reply)

    async def one_visit(self, source: str, n: int) -> None:
        ws = await self.connect(source)
        if ws is None:
            return
        try:
            self.outcomes[("connect", "ok")] += 1
            if n % 4 == 0:
                hello = {"name": f"f{source.split('.')[-1]}x{n}x{random.randrange(10**6)}"}
            else:
                hello = {"guest": True}
            welcome = await self.ask(ws, "hello", type="hello", protocol=1, **hello)
            if welcome["type"] != "welcome":
                return
            room = await self.ask(ws, "create_room", type="create_room", name="flood")
            if room["type"] == "room_state":
                self.rooms.append(room["room"]["id"])
                del self.rooms[:-200]
            await self.ask(ws, "create_tournament", type="create_tournament", name="flood cup")
            for target in random.sample(self.rooms, min(3, len(self.rooms))):
                joined = await self.ask(ws, "join_room", type="join_room", room_id=target,
                                        spectate=True)  # fmt: skip
                if joined["type"] == "room_state":
                    await self.ask(ws, "leave_room", type="leave_room", room_id=target)
            await self.ask(ws, "list_rooms", type="list_rooms")
        except (websockets.ConnectionClosed, TimeoutError):
            self.outcomes[("connection", "lost")] += 1
        finally:
            await ws.close()

    async def flooder(self, source: str) -> None:
        n = 0
        while time.monotonic() < self.deadline:
            await self.one_visit(source, n)
            n += 1

    async def poller(self, source: str) -> None:
        """Fetch /api/rooms from ``source`` as fast as it is answered."""
        loop = asyncio.get_running_loop()
        while time.monotonic() < self.deadline:
            status = await loop.run_in_executor(None, self._get, source)
            self.outcomes[("GET /api/rooms", status)] += 1

    def _get(self, source: str) -> str:
        import http.client

        host, port = self.http.removeprefix("http://").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=10, source_address=(source, 0))
        try:
            conn.request("GET", "/api/rooms")
            return "ok" if conn.getresponse().status == 200 else "429"
        except OSError as exc:
            return type(exc).__name__
        finally:
            conn.close()


async def flood(
    args: argparse.Namespace, server: Child, db: Path
) -> list[tuple[str, float, int, int, int]]:
    url = f"ws://{HOST}:{server.port}/ws"
    http = f"http://{HOST}:{server.port}"
    samples: list[tuple[str, float, int, int, int]] = []

    def sample(label: str, t: float) -> None:
        rooms = health(http)["rooms"]
        samples.append((label, t, server.rss_kib(), db_kib(db), rooms))

    sample("before", 0.0)
    start = time.monotonic()
    state = Flood(url, http, start + args.duration)
    sources = [f"127.0.0.{2 + a}" for a in range(args.addresses)]
    tasks = [
        asyncio.create_task(state.flooder(s)) for s in sources for _ in range(args.per_address)
    ]
    tasks += [asyncio.create_task(state.poller(s)) for s in sources[:4]]
    while time.monotonic() < start + args.duration:
        await asyncio.sleep(min(args.every, start + args.duration - time.monotonic()))
        sample("during", time.monotonic() - start)
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.sleep(10)
    sample("after", time.monotonic() - start)
    FLOOD_OUTCOMES.update(state.outcomes)
    return samples


FLOOD_OUTCOMES: Counter[tuple[str, str]] = Counter()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of flood")
    parser.add_argument("--addresses", type=int, default=64, help="loopback addresses (max 250)")
    parser.add_argument("--per-address", type=int, default=2, help="flooders per address")
    parser.add_argument("--every", type=float, default=10.0, help="seconds between samples")
    args = parser.parse_args(argv)
    if not 1 <= args.addresses <= 250 or args.duration <= 0 or args.per_address < 1:
        parser.error("--addresses 1 to 250, --duration above 0, --per-address 1 or more")
    with tempfile.TemporaryDirectory(prefix="bench-flood-") as tmp:
        db = Path(tmp) / "flood.db"
        argv_ = [sys.executable, "-m", "client_cli", "serve", "--host", HOST, "--port", "0",
                 "--db", str(db)]  # fmt: skip
        server = Child(argv_, r"http://[\d.]+:(\d+)")
        try:
            samples = asyncio.run(flood(args, server, db))
        finally:
            server.stop()
        again = Child(argv_, r"http://[\d.]+:(\d+)")
        try:
            time.sleep(3)
            rooms = health(f"http://{HOST}:{again.port}")["rooms"]
            samples.append(("restarted", 0.0, again.rss_kib(), db_kib(db), rooms))
        finally:
            again.stop()
    print(f"flood: {args.addresses} addresses x {args.per_address} flooders, {args.duration:g} s,"
          " default limits")  # fmt: skip
    print(f"{'':10} {'t (s)':>6} {'RSS MiB':>8} {'DB KiB':>8} {'rooms':>6}")
    for label, t, rss, size, rooms in samples:
        print(f"{label:10} {t:6.0f} {rss / 1024:8.1f} {size:8d} {rooms:6d}")
    during = [s for s in samples if s[0] in ("before", "during")]
    half = len(during) // 2
    if len(during) >= 3:
        for name, column in (("RSS", 2), ("DB", 3)):
            first = during[half][column] - during[0][column]
            second = during[-1][column] - during[half][column]
            print(f"{name} growth: first half {first / 1024:+.1f} MiB,"
                  f" second half {second / 1024:+.1f} MiB")  # fmt: skip
    print("answers:")
    for (what, outcome), count in sorted(FLOOD_OUTCOMES.items()):
        print(f"  {what:18} {outcome:22} {count:8d}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
