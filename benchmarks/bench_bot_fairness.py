"""One account floods the server with level-8 bots while a person plays a level-8 bot.

    python -m benchmarks.bench_bot_fairness [--deals 2] [--max-s 600] [--budget-s S]

The attack of the third hostile-load issue, on loopback and bounded in time.
The real server (``python -m client_cli serve``, a temporary database, every
limit at its default but ``between_rounds_ms``, 1 s, and
``bot_cpu_per_owner_s`` if ``--budget-s`` is given). One account from
127.0.0.1 creates two duplicate tournaments of 512 entrants, fills them with
1,024 level-8 server bots (``add_tournament_bot`` with ``count: 256``, four
times) and starts both. Meanwhile a person, from 127.0.0.2, plays level-8 bots
in a room of two (``create_room``, ``add_bot level-8``, ``ready``, then one
``rematch`` after another), placing each card on its first legal cell as soon
as it is dealt, but at most ten a second (a quick person, within the frame
limit of 20 a second).

What it measures: the person's **card latency**, from sending a placement to
receiving the next card (the bot's move for that turn has to be made and
stored first), before the flood (one game, after a first one that starts the
bot workers) and during it (every game until both tournaments are over); the
time each tournament took from its start to its final standings; the
server's CPU time and that of its bot workers. It fails (exit 1) if a flood
tournament does not finish within ``--max-s``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.bench_server import HOST, Child
from tests.server.live import Client, Live, connect_over

PERSON_ADDRESS = "127.0.0.2"
FLOOD_BOTS = 1_024  # in all, over two tournaments
ADDS = 4  # add_tournament_bot calls of count 256
PACE_S = 0.1  # the person places at most one card this often
STALL_S = 120.0  # a card not dealt this long after the person's placement: given up


def cpu_of(pid: int) -> float:
    """User plus system CPU-seconds of ``pid`` (/proc), 0 if gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def workers_of(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def ask(client: Client, **message: Any) -> dict[str, Any]:
    """Send a request and read to its reply (or an error, which fails the benchmark)."""
    ref = f"r{time.monotonic_ns()}"
    await client.send(ref=ref, **message)
    while True:
        reply = await client.recv(timeout=60)
        if reply["type"] == "error":
            raise RuntimeError(f"{message['type']}: {reply['code']} {reply['reason']}")
        if reply.get("ref") == ref:
            return reply


class Person:
    """Plays a server bot (level-8 unless told), one room after another, timing each card."""

    def __init__(self, client: Client, strategy: str = "level-8") -> None:
        self.client = client
        self.strategy = strategy
        self.room_id: str | None = None
        self.games = 0

    async def game(self, times: list[float]) -> None:
        """One deal against the bot, each card's latency added to ``times`` as it comes:
        in a new room the first time, then a rematch in it (a room a game would meet
        the 60 rooms an hour an account may create). A card not dealt within
        :data:`STALL_S` counts as that long, and ends the game (TimeoutError)."""
        c = self.client
        if self.room_id is None:
            state = await ask(c, type="create_room", name="person vs bot", seats=2)
            self.room_id = state["room"]["id"]
            await ask(c, type="add_bot", room_id=self.room_id, strategy=self.strategy)
            await c.send(type="ready", room_id=self.room_id)
        else:
            await c.send(type="rematch", room_id=self.room_id, want=True)
        sent: float | None = None
        while True:
            try:
                message = await c.until("card", "match_result", "error", timeout=STALL_S)
            except TimeoutError:
                if sent is not None:
                    times.append(STALL_S)
                raise
            if message["type"] == "error":
                raise RuntimeError(f"the person was refused: {message['code']} {message['reason']}")
            if message.get("room_id") != self.room_id:
                continue
            now = time.perf_counter()
            if sent is not None:
                times.append(now - sent)
                # A quick person, not a script: at most ten placements a second, well
                # within a connection's frame limit (20/s).
                await asyncio.sleep(max(0.0, PACE_S - (now - sent)))
            if message["type"] == "match_result":
                break
            sent = time.perf_counter()
            await c.send(type="place", room_id=self.room_id, turn=message["turn"],
                         cell=message["legal"][0])  # fmt: skip
        self.games += 1


class Flood:
    """One account, two tournaments of 512 level-8 server bots, started."""

    def __init__(self, client: Client, deals: int) -> None:
        self.client = client
        self.deals = deals
        self.ids: list[str] = []
        self.started: dict[str, float] = {}
        self.finished: dict[str, float] = {}
        self.status: dict[str, str] = {}

    async def start(self) -> None:
        c = self.client
        for n in range(2):
            reply = await ask(c, type="create_tournament", name=f"flood {n}", rounds=self.deals,
                              max_players=512)  # fmt: skip
            self.ids.append(reply["tournament"]["id"])
        for k in range(ADDS):
            await ask(c, type="add_tournament_bot", tournament_id=self.ids[k % 2],
                      strategy="level-8", count=FLOOD_BOTS // ADDS)  # fmt: skip
        for tid in self.ids:
            await ask(c, type="manage_tournament", tournament_id=tid, action="start")
            self.started[tid] = time.perf_counter()

    async def watch(self) -> None:
        """Read the host's updates (all of them: a host that does not read is dropped)
        until both tournaments are over."""
        while len(self.finished) < len(self.ids):
            message = await self.client.recv(timeout=600)
            if message["type"] != "tournament":
                continue
            t = message["tournament"]
            self.status[t["id"]] = t["status"]
            if t["status"] in ("finished", "cancelled") and t["id"] not in self.finished:
                self.finished[t["id"]] = time.perf_counter() - self.started[t["id"]]


async def run(args: argparse.Namespace, live: Live, server: Child) -> int:
    flooder = await connect_over(live, source=HOST)
    assert (await flooder.hello("flooder"))["type"] == "welcome"
    person_client = await connect_over(live, source=PERSON_ADDRESS)
    assert (await person_client.hello("person"))["type"] == "welcome"
    person = Person(person_client)

    await person.game([])  # the bot workers start on the first move: not timed
    quiet: list[float] = []
    await person.game(quiet)
    flood = Flood(flooder, args.deals)
    cpu0 = cpu_of(server.pid), sum(cpu_of(w) for w in workers_of(server.pid))
    t0 = time.perf_counter()
    await flood.start()
    watcher = asyncio.create_task(flood.watch())
    loaded: list[float] = []
    deadline = t0 + args.max_s
    stalled = False
    while not watcher.done() and time.perf_counter() < deadline and not stalled:
        try:
            await person.game(loaded)
        except TimeoutError:
            stalled = True
        print(f"  game {person.games}: {len(loaded)} cards timed, flood "
              f"{sorted(flood.status.values())} at {time.perf_counter() - t0:.0f} s",
              file=sys.stderr, flush=True)  # fmt: skip
    if not watcher.done():
        with_timeout = deadline - time.perf_counter()
        try:
            await asyncio.wait_for(asyncio.shield(watcher), max(1.0, with_timeout))
        except TimeoutError:
            watcher.cancel()
    wall = time.perf_counter() - t0
    cpu1 = cpu_of(server.pid), sum(cpu_of(w) for w in workers_of(server.pid))
    await person_client.close()
    await flooder.close()

    def line(what: str, values: list[float]) -> str:
        ms = [v * 1000 for v in values]
        return (f"{what}: {len(ms)} cards, p50 {statistics.median(ms):.0f} ms, "
                f"p90 {percentile(ms, 0.9):.0f} ms, p99 {percentile(ms, 0.99):.0f} ms, "
                f"max {max(ms):.0f} ms, {sum(v > 1000 for v in ms)} over 1 s")  # fmt: skip

    budget = "default" if args.budget_s is None else f"{args.budget_s:g}"
    print(f"flood: {FLOOD_BOTS} level-8 server bots of one account in 2 duplicate tournaments"
          f" of {args.deals} deals; bot_cpu_per_owner_s {budget}")  # fmt: skip
    print(line("person vs level-8, before the flood", quiet))
    print(line(f"person vs level-8, during the flood ({person.games - 2} games)", loaded))
    if stalled:
        print(f"the person's game stalled: no card for {STALL_S:.0f} s after a placement")
    for n, tid in enumerate(flood.ids):
        took = flood.finished.get(tid)
        state = flood.status.get(tid, "?")
        print(
            f"flood tournament {n + 1}: {state}"
            + (f" {took:.1f} s after its start" if took is not None else " (not over)")
        )
    print(f"wall {wall:.1f} s; CPU-seconds: server {cpu1[0] - cpu0[0]:.1f},"
          f" bot workers {cpu1[1] - cpu0[1]:.1f}")  # fmt: skip
    for failure in server.failures:
        print("server:", failure)
    ok = not stalled and len(flood.finished) == 2
    ok = ok and all(flood.status[t] == "finished" for t in flood.ids)
    return 0 if ok else 1


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_bot_fairness",
                                description=__doc__.splitlines()[0])  # fmt: skip
    p.add_argument("--deals", type=int, default=2, help="deals of each flood tournament (2)")
    p.add_argument("--max-s", type=float, default=600.0, help="give the flood this long (600)")
    p.add_argument(
        "--budget-s",
        type=float,
        default=None,
        help="bot_cpu_per_owner_s for the server (its default if not given)",
    )
    args = p.parse_args(argv)
    if not (1 <= args.deals <= 20 and 10 <= args.max_s <= 3_600):
        p.error("--deals 1..20, --max-s 10..3600")
    with tempfile.TemporaryDirectory(prefix="cribsquares-fairness-") as tmp:
        config = Path(tmp) / "server.toml"
        settings = {"between_rounds_ms": 1_000}
        if args.budget_s is not None:
            settings["bot_cpu_per_owner_s"] = args.budget_s  # type: ignore[assignment]
        config.write_text("".join(f"{k} = {json.dumps(v)}\n" for k, v in settings.items()))
        argv_ = [sys.executable, "-m", "client_cli", "serve", "--host", HOST, "--port", "0",
                 "--db", str(Path(tmp) / "fair.db"), "--config", str(config)]  # fmt: skip
        server = Child(argv_, r"http://[\d.]+:(\d+)")
        try:
            live = Live(f"ws://{HOST}:{server.port}/ws", f"http://{HOST}:{server.port}", None)
            return asyncio.run(run(args, live, server))
        finally:
            server.stop()


if __name__ == "__main__":
    raise SystemExit(main())
