"""Heavy reads from one address while a person plays: the big-answer attacks.

    python -m benchmarks.bench_heavy_reads [--bots 512] [--rounds 20] [--phase-s 20]

The attacks 1 and 2 of the fourth hostile-load round, on loopback, bounded in
time. The real server (``python -m client_cli serve``, a temporary database,
every limit at its default but ``between_rounds_ms``, 1 s). Before anything is
timed, a host (127.0.0.5) plays a public Swiss tournament of ``--bots`` level-1
server bots over ``--rounds`` rounds to its end (attack 2's target), and an
attacker's account (127.0.0.3) creates a tournament with ``--bots`` level-1
bots that it never starts (attack 1's target).

A person (127.0.0.2) plays a level-1 bot in a room of two the whole time, one
game after another, placing each card on its first legal cell as soon as it is
dealt, at most ten a second. Its **card latency** (from sending a placement to
the next card) is kept by phase, each ``--phase-s`` long:

- *idle*: nobody else does anything;
- *attack 1*: the attacker's account opens 16 WebSockets from its address and
  sends ``get_tournament`` for its tournament on each, 18 times a second (just
  inside the frame limit), reading every answer;
- *attack 2*: 8 HTTP readers from 127.0.0.4 read the finished tournament,
  ``GET /api/tournaments/{id}`` and its JSON export of boards in turn;
- *after*: nobody else again.

It prints each phase's p50, p99 and max, what the attackers got (answers,
refusals by code, bytes) and the server's CPU-seconds in each phase, and says
whether each attack kept the person's p99 within twice the idle p99 plus 50 ms
(exit 1 if not).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import aiohttp

from benchmarks.bench_bot_fairness import Person, ask, cpu_of, percentile
from benchmarks.bench_server import HOST, Child
from tests.server.live import Client, Live, connect_over

PERSON_ADDRESS = "127.0.0.2"
ATTACKER_ADDRESS = "127.0.0.3"
READER_ADDRESS = "127.0.0.4"
HOST_ADDRESS = "127.0.0.5"
SOCKETS = 16  # attack 1: one account's WebSockets
ASKS_PER_S = 18.0  # attack 1: get_tournament on each, just inside the frame limit (20/s)
READERS = 8  # attack 2: concurrent HTTP readers from one address
PHASES = ("idle", "attack 1", "attack 2", "after")


class Tally:
    """What an attacker got: answers by kind, bytes read."""

    def __init__(self) -> None:
        self.kinds: Counter[str] = Counter()
        self.bytes = 0

    def line(self) -> str:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.kinds.items()))
        return f"{kinds or 'nothing'}; {self.bytes / 1e6:.1f} MB read"


async def bots_in(c: Client, tid: str, count: int) -> None:
    while count > 0:
        n = min(256, count)
        await ask(c, type="add_tournament_bot", tournament_id=tid, strategy="level-1", count=n)
        count -= n


async def played_tournament(live: Live, bots: int, rounds: int) -> str:
    """A public Swiss of ``bots`` level-1 bots over ``rounds`` rounds, played to its end."""
    host = await connect_over(live, source=HOST_ADDRESS)
    assert (await host.hello("big-host"))["type"] == "welcome"
    reply = await ask(host, type="create_tournament", name="big swiss", format="swiss",
                      rounds=rounds, max_players=bots)  # fmt: skip
    tid: str = reply["tournament"]["id"]
    await bots_in(host, tid, bots)
    await ask(host, type="manage_tournament", tournament_id=tid, action="start")
    t0 = time.perf_counter()
    while True:  # the host reads every update (one that does not is dropped as too slow)
        message = await host.recv(timeout=600)
        if message["type"] == "tournament" and message["tournament"]["id"] == tid:
            status = message["tournament"]["status"]
            if status in ("finished", "cancelled"):
                break
        host.log.clear()
    took = time.perf_counter() - t0
    print(f"target of attack 2: a Swiss of {bots} level-1 bots over {rounds} rounds,"
          f" {status} in {took:.0f} s", file=sys.stderr, flush=True)  # fmt: skip
    await host.close()
    return tid


async def attack_one(live: Live, tid: str, token: str, until: float, tally: Tally) -> None:
    """16 WebSockets of one account ask for its tournament 18 times a second each."""

    async def one() -> None:
        sock = await connect_over(live, source=ATTACKER_ADDRESS, max_size=None)
        ws = sock.ws
        await ws.send(json.dumps({"type": "hello", "protocol": 1, "token": token}))

        async def reader() -> None:
            async for frame in ws:
                tally.bytes += len(frame)
                head = frame[:200] if isinstance(frame, str) else ""
                if head.startswith('{"type":"error"'):
                    tally.kinds["error " + json.loads(frame)["code"]] += 1
                else:
                    tally.kinds[head[9 : head.index('"', 9)] if head else "?"] += 1

        reading = asyncio.create_task(reader())
        ask_ = json.dumps({"type": "get_tournament", "tournament_id": tid})
        while time.perf_counter() < until:
            await ws.send(ask_)
            await asyncio.sleep(1 / ASKS_PER_S)
        reading.cancel()
        await ws.close()

    await asyncio.gather(*(one() for _ in range(SOCKETS)), return_exceptions=True)


async def attack_two(http: str, tid: str, until: float, tally: Tally) -> None:
    """8 readers from one address read the big tournament and its boards in turn."""
    paths = [f"/api/tournaments/{tid}", f"/api/tournaments/{tid}/export?format=json&what=boards"]
    connector = aiohttp.TCPConnector(local_addr=(READER_ADDRESS, 0), limit=READERS)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def reader(n: int) -> None:
            k = n
            while time.perf_counter() < until:
                async with session.get(http + paths[k % 2]) as reply:
                    body = await reply.read()
                tally.bytes += len(body)
                tally.kinds[str(reply.status)] += 1
                if reply.status == 429:  # waits as told, or to the end of the phase
                    wait = float(reply.headers.get("Retry-After", "1"))
                    await asyncio.sleep(min(wait, max(0.0, until - time.perf_counter())))
                k += 1

        await asyncio.gather(*(reader(n) for n in range(READERS)))


async def run(args: argparse.Namespace, live: Live, server: Child) -> int:
    big = await played_tournament(live, args.bots, args.rounds)
    attacker = await connect_over(live, source=ATTACKER_ADDRESS)
    assert (await attacker.hello("attacker"))["type"] == "welcome"
    reply = await ask(attacker, type="create_tournament", name="never started",
                      max_players=args.bots)  # fmt: skip
    registering = reply["tournament"]["id"]
    await bots_in(attacker, registering, args.bots)
    assert attacker.token is not None

    person = Person(await connect_over(live, source=PERSON_ADDRESS), strategy="level-1")
    assert (await person.client.hello("person"))["type"] == "welcome"
    await person.game([])  # the bot workers start on the first move: not timed
    times: dict[str, list[float]] = {phase: [] for phase in PHASES}
    cpu: dict[str, float] = {}
    tallies = {"attack 1": Tally(), "attack 2": Tally()}
    phase = PHASES[0]
    playing = True

    class Now(list[float]):
        """Each card's latency, kept under the phase it was timed in."""

        def append(self, latency: float) -> None:
            times[phase].append(latency)

    async def play() -> None:
        while playing:
            await person.game(Now())

    player = asyncio.create_task(play())
    for phase in PHASES:
        c0 = cpu_of(server.pid)
        until = time.perf_counter() + args.phase_s
        print(f"phase {phase} ({args.phase_s:g} s)", file=sys.stderr, flush=True)
        if phase == "attack 1":
            await attack_one(live, registering, attacker.token, until, tallies[phase])
        elif phase == "attack 2":
            await attack_two(live.http, big, until, tallies[phase])
        await asyncio.sleep(max(0.0, until - time.perf_counter()))
        cpu[phase] = cpu_of(server.pid) - c0
    playing = False
    await asyncio.wait_for(player, 60)
    await person.client.close()
    await attacker.close()

    idle = percentile([t * 1000 for t in times["idle"]], 0.99)
    bound = 2 * idle + 50
    print(f"a person (level-1 bot, at most 10 cards a second) while {SOCKETS} sockets of one"
          f" account ask for a registering tournament of {args.bots} bots (attack 1), then"
          f" {READERS} HTTP readers read a finished Swiss of {args.bots} bots over"
          f" {args.rounds} rounds (attack 2); phases of {args.phase_s:g} s")  # fmt: skip
    ok = True
    for name in PHASES:
        ms = [t * 1000 for t in times[name]]
        if not ms:
            print(f"{name}: no card timed")
            ok = False
            continue
        p99 = percentile(ms, 0.99)
        verdict = ""
        if name in tallies:
            within = p99 <= bound
            ok = ok and within
            verdict = f" ({'within' if within else 'NOT within'} 2 x idle + 50 ms = {bound:.0f})"
        print(f"{name}: {len(ms)} cards, p50 {statistics.median(ms):.0f} ms,"
              f" p99 {p99:.0f} ms{verdict}, max {max(ms):.0f} ms;"
              f" server CPU {cpu[name]:.1f} s")  # fmt: skip
        if name in tallies:
            print(f"  the attackers got: {tallies[name].line()}")
    for failure in server.failures:
        print("server:", failure)
    return 0 if ok else 1


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_heavy_reads",
                                description=__doc__.splitlines()[0])  # fmt: skip
    p.add_argument("--bots", type=int, default=512, help="bots in each tournament (512)")
    p.add_argument("--rounds", type=int, default=20, help="rounds of the finished one (20)")
    p.add_argument("--phase-s", type=float, default=20.0, help="each phase's length (20)")
    args = p.parse_args(argv)
    if not (2 <= args.bots <= 512 and 1 <= args.rounds <= 20 and 5 <= args.phase_s <= 600):
        p.error("--bots 2..512, --rounds 1..20, --phase-s 5..600")
    with tempfile.TemporaryDirectory(prefix="cribsquares-reads-") as tmp:
        config = Path(tmp) / "server.toml"
        config.write_text("between_rounds_ms = 1000\n")
        argv_ = [sys.executable, "-m", "client_cli", "serve", "--host", HOST, "--port", "0",
                 "--db", str(Path(tmp) / "reads.db"), "--config", str(config)]  # fmt: skip
        server = Child(argv_, r"http://[\d.]+:(\d+)")
        try:
            live = Live(f"ws://{HOST}:{server.port}/ws", f"http://{HOST}:{server.port}", None)
            return asyncio.run(run(args, live, server))
        finally:
            server.stop()


if __name__ == "__main__":
    raise SystemExit(main())
