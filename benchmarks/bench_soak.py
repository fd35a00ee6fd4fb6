"""Soak test of the game server: bot matches back to back for a long time, watching memory.

    python -m benchmarks.bench_soak [--duration 1800] [--rooms 8] [--sample S] [--json]
        [--max-growth 5] [--workers 2] [--seed N] [--server-command CMD]

What it does, all on 127.0.0.1, bounded in time, cleaning up after itself:

1. starts the real server (``python -m client_cli serve`` on a free port with a
   temporary database, as ``benchmarks.bench_server`` does);
2. plays bot matches over the public WebSocket protocol, one after another in
   each of ``--rooms`` rooms, from ``--workers`` load-generator processes, for
   ``--duration`` seconds. The rooms are a fixed mix (:data:`MIX`): lockstep and
   race, 2 to 4 seats, some with server-side bot seats (``add_bot``), short
   clocks. Each match is a fresh room: create, add the bots, join, ready, play
   (a random legal cell after a short think), leave; every fourth match one
   player drops its connection and signs in again with its token;
3. every ``--sample`` seconds records the time, matches finished, placements,
   errors, the server's resident memory (VmRSS of its process, and of its
   process with the bot workers it started), its CPU and the database's size;
4. prints the samples and a verdict, and exits 1 if no match finished, if there
   was any error, or if memory kept growing.

**Errors** are ``error`` replies, connections that fail or close unexpectedly,
messages that do not come (35 s, longer than any clock), a result that does not
rank every seat, lines the server logs at ERROR level or above, and the server
exiting. Cards the server placed itself because a clock ran out (``auto``)
are counted apart: they mean the machine stalled for seconds, not that the
server is wrong.

**Memory verdict.** The first third of the samples is warm-up (imports,
caches, the bot workers, the database's page cache) and is not judged. The
median RSS of the last third is compared with the median of the second third:
memory "keeps growing" if it grew by ``--max-growth`` per cent (5) or more.
Medians make one spike harmless; comparing thirds rather than the first and
last sample ignores the warm-up. The least-squares slope over the last two
thirds (KiB per minute) is reported beside it, for the record. Both figures
are computed for the server process alone and for it with its bot workers.

Each room's connections come from their own loopback address (127.0.0.2,
127.0.0.3, ...), because the server admits at most 32 connections from one
address; where that address cannot be bound, 127.0.0.1 is used.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing as mp
import os
import queue
import random
import re
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.bench_server import HOST, RECV_TIMEOUT_S, Bot, Child, game_server

DEFAULT_DURATION_S = 1800.0
DEFAULT_ROOMS = 8
DEFAULT_WORKERS = 2
DEFAULT_MAX_GROWTH = 5.0  # per cent, last third against second third
CARD_CLOCK_MS = 5_000  # lockstep: the server's minimum is 1 s; bots place within 0.15 s
DEAL_CLOCK_MS = 30_000  # race: the server's minimum is 10 s
THINK_S = (0.02, 0.12)  # keeps every connection well under the 20 frames/s flood limit
RECONNECT_EVERY = 4  # matches of a room between two reconnections of one of its players
STATUS_EVERY_S = 0.5  # how often a worker reports its counts
MIN_SAMPLES = 6  # fewer cannot be split into thirds worth comparing


@dataclass(frozen=True)
class RoomSpec:
    """One room of the mix: its pace, seats and the strategies of its server-side bots."""

    index: int
    pace: str  # lockstep | race
    seats: int
    bots: tuple[str, ...] = ()  # server-side bot seats, by strategy

    @property
    def clients(self) -> int:
        """Seats played by the load generator over the protocol."""
        return self.seats - len(self.bots)

    def describe(self) -> str:
        bots = f" + {', '.join(self.bots)} bot" if self.bots else ""
        return f"{self.pace} {self.seats} seats{bots}"


# Rooms take these shapes in turn: every pace with 2, 3 and 4 seats, with and
# without server bots (each engine strategy and the fallback rule).
MIX: tuple[tuple[str, int, tuple[str, ...]], ...] = (
    ("lockstep", 4, ()),
    ("race", 2, ()),
    ("lockstep", 3, ("greedy",)),
    ("race", 4, ("random", "fallback")),
    ("lockstep", 2, ("expert",)),
    ("race", 3, ("greedy",)),
    ("lockstep", 2, ()),
    ("race", 4, ()),
)


def room_specs(rooms: int) -> list[RoomSpec]:
    return [RoomSpec(i, *MIX[i % len(MIX)]) for i in range(rooms)]


# ----------------------------------------------------------------------
# The load generator (runs in worker processes)


class ProtocolError(Exception):
    """An ``error`` reply from the server."""

    def __init__(self, message: dict[str, Any]) -> None:
        super().__init__(f"{message.get('code')}: {message.get('reason')}")
        self.code = str(message.get("code"))


class SoakError(Exception):
    """Something the server did that it should not have (a bad result, a lost reply...)."""


@dataclass
class Tally:
    """A worker's counts so far."""

    matches: int = 0
    placements: int = 0
    auto: int = 0
    reconnects: int = 0
    errors: Counter[str] = field(default_factory=Counter)

    def snapshot(self) -> dict[str, Any]:
        return {
            "matches": self.matches,
            "placements": self.placements,
            "auto": self.auto,
            "reconnects": self.reconnects,
            "errors": dict(self.errors),
        }


def error_kind(exc: BaseException) -> str:
    """A short, stable name for what went wrong, to count errors by kind."""
    from websockets.exceptions import ConnectionClosed, InvalidStatus

    if isinstance(exc, ProtocolError):
        return f"error reply {exc.code}"
    if isinstance(exc, ConnectionClosed):
        code = exc.rcvd.code if exc.rcvd is not None else "none"
        return f"connection closed unexpectedly (code {code})"
    if isinstance(exc, InvalidStatus):
        return f"connection refused (HTTP {exc.response.status_code})"
    if isinstance(exc, TimeoutError):
        return "no reply in time"
    if isinstance(exc, OSError):
        return f"connection failed ({type(exc).__name__})"
    if isinstance(exc, SoakError):
        return str(exc)
    return f"load generator {type(exc).__name__}"


@dataclass
class Player:
    """A seat played by the load generator: its connection and its token."""

    name: str
    source: str | None  # the local address its connections come from
    bot: Bot | None = None
    token: str | None = None
    refs: int = 0

    def ref(self) -> str:
        self.refs += 1
        return f"{self.name}-{self.refs}"

    @property
    def ws(self) -> Bot:
        assert self.bot is not None
        return self.bot


async def open_connection(url: str, name: str, source: str | None) -> Bot:
    from websockets.asyncio.client import connect

    options: dict[str, Any] = {"open_timeout": RECV_TIMEOUT_S, "compression": None}
    if source is not None:
        options["local_addr"] = (source, 0)
    return Bot(await connect(url, **options), name)


async def ask(player: Player, **message: Any) -> dict[str, Any]:
    """Send a request and read until its reply (the message echoing its ref)."""
    ref = player.ref()
    await player.ws.send(ref=ref, **message)
    while True:
        reply = await player.ws.recv()  # TimeoutError after RECV_TIMEOUT_S
        if reply["type"] == "error":
            raise ProtocolError(reply)
        if reply.get("ref") == ref:
            return reply


async def sign_in(url: str, player: Player) -> None:
    """Connect; a new player the first time, the same player (by token) after that."""
    player.bot = await open_connection(url, player.name, player.source)
    new = {"name": player.name, "bot": True}
    hello = new if player.token is None else {"token": player.token}
    welcome = await ask(player, type="hello", protocol=1, client="bench_soak", **hello)
    if welcome["type"] != "welcome":
        raise SoakError(f"hello answered with {welcome['type']}")
    player.ws.id = welcome["player"]["id"]
    player.token = welcome["token"] or player.token


async def close(player: Player) -> None:
    if player.bot is not None:
        bot, player.bot = player.bot, None
        with contextlib.suppress(Exception):
            await asyncio.wait_for(bot.ws.close(), 5)


async def play(player: Player, room_id: str, rng: random.Random, tally: Tally) -> dict[str, Any]:
    """Place every card dealt to ``player`` in ``room_id`` until the result; return it."""
    while True:
        message = await player.ws.recv()
        kind = message["type"]
        if kind == "error":
            raise ProtocolError(message)
        if message.get("room_id") != room_id:
            continue  # room broadcasts, or late messages of the previous room
        if kind == "card":
            await asyncio.sleep(rng.uniform(*THINK_S))
            cell = rng.choice(message["legal"])
            await player.ws.send(type="place", room_id=room_id, turn=message["turn"], cell=cell)
        elif kind == "placed":
            if message["auto"]:
                tally.auto += 1
            else:
                tally.placements += 1
        elif kind == "match_result":
            return message


async def one_match(
    spec: RoomSpec, players: list[Player], rng: random.Random, tally: Tally
) -> None:
    """Open a room, fill it, play its match to the result, leave."""
    creator = players[0]
    state = await ask(
        creator,
        type="create_room",
        name=f"soak {spec.index}",
        seats=spec.seats,
        pace=spec.pace,
        card_clock_ms=CARD_CLOCK_MS,
        deal_clock_ms=DEAL_CLOCK_MS,
    )
    room_id: str = state["room"]["id"]
    for strategy in spec.bots:
        await ask(creator, type="add_bot", room_id=room_id, strategy=strategy)
    for player in players[1:]:
        await ask(player, type="join_room", room_id=room_id)
    # No waiting for the replies to ready: the last one starts the match, and
    # its reply is followed at once by the first cards.
    for player in players:
        await player.ws.send(type="ready", room_id=room_id)
    results = await asyncio.gather(*(play(p, room_id, rng, tally) for p in players))
    seats = {len(result["boards"]) for result in results}
    if seats != {spec.seats}:
        raise SoakError(f"a result ranks {sorted(seats)} boards of {spec.seats}")
    tally.matches += 1
    for player in players:
        await ask(player, type="leave_room", room_id=room_id)


async def room_loop(spec: RoomSpec, url: str, source: str | None, tally: Tally, seed: int) -> None:
    """Matches back to back in rooms of ``spec``'s shape, until cancelled.

    After an error the room's players disconnect, wait a second and sign in
    again, so one failure is counted once and the soak goes on.
    """
    rng = random.Random(f"{seed}-{spec.index}")
    players = [Player(f"soak-{spec.index}-{k}", source) for k in range(spec.clients)]
    played = 0
    try:
        while True:
            try:
                for player in players:
                    if player.bot is None:
                        await sign_in(url, player)
                await one_match(spec, players, rng, tally)
                played += 1
                if played % RECONNECT_EVERY == 0:  # a dropped connection, then the same player
                    leaving = players[(played // RECONNECT_EVERY) % len(players)]
                    await close(leaving)
                    await sign_in(url, leaving)
                    tally.reconnects += 1
                players = players[1:] + players[:1]  # the creator rotates
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                tally.errors[error_kind(exc)] += 1
                for player in players:
                    await close(player)
                await asyncio.sleep(1.0)
    finally:
        for player in players:
            await close(player)


def source_address(index: int) -> str | None:
    """The loopback address of room ``index``'s connections, or None where none can be bound."""
    if HOST != "127.0.0.1" or sys.platform != "linux":
        return None
    import socket

    address = f"127.0.0.{2 + index % 250}"
    try:
        with socket.socket() as probe:
            probe.bind((address, 0))
    except OSError:
        return None
    return address


async def run_worker(
    url: str, specs: list[RoomSpec], seed: int, stop: Any, reports: Any, worker: int
) -> None:
    tally = Tally()
    tasks = [
        asyncio.create_task(room_loop(spec, url, source_address(spec.index), tally, seed))
        for spec in specs
    ]
    while not stop.is_set():
        reports.put(("status", worker, tally.snapshot()))
        await asyncio.sleep(STATUS_EVERY_S)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    reports.put(("done", worker, tally.snapshot()))


def worker_main(
    url: str, specs: list[RoomSpec], seed: int, stop: Any, reports: Any, worker: int
) -> None:
    with contextlib.suppress(KeyboardInterrupt):
        try:
            asyncio.run(run_worker(url, specs, seed, stop, reports, worker))
        except Exception as exc:
            reports.put(("done", worker, {"errors": {f"load generator failed: {exc!r}": 1}}))


# ----------------------------------------------------------------------
# Watching the server


def descendants(pid: int) -> list[int]:
    """Every process started by ``pid``, directly or not (Linux /proc; [] elsewhere)."""
    parents: dict[int, int] = {}
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError, ValueError, IndexError):
                stat = Path(entry.path, "stat").read_text()
                parents[int(entry.name)] = int(stat[stat.rindex(")") + 2 :].split()[1])
    found: list[int] = []
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        children = [child for child, p in parents.items() if p == parent]
        found += children
        frontier += children
    return found


def rss_kib(pid: int) -> int:
    """VmRSS of ``pid`` in KiB, 0 if it is gone or /proc is not there."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def files_kib(folder: Path) -> int:
    """Size of the database, its WAL and shared-memory files."""
    total = 0
    for path in folder.glob("*.db*"):
        with contextlib.suppress(OSError):
            total += path.stat().st_size
    return total // 1024


class LogWatch:
    """Reads the server's output to its end (a full pipe would block it) and counts errors."""

    PATTERN = re.compile(r"\b(ERROR|CRITICAL)\b|^Traceback")

    def __init__(self, child: Child) -> None:
        self.errors = 0
        self.last: deque[str] = deque(maxlen=20)
        self._thread = threading.Thread(target=self._read, args=(child,), daemon=True)
        self._thread.start()

    def _read(self, child: Child) -> None:
        assert child.proc.stdout is not None
        with contextlib.suppress(ValueError, OSError):
            for line in child.proc.stdout:
                self.last.append(line.rstrip())
                if self.PATTERN.search(line):
                    self.errors += 1


@dataclass
class Sample:
    elapsed_s: float
    matches: int
    placements: int
    errors: int
    auto: int
    reconnects: int
    rss_kib: int  # the server process
    rss_tree_kib: int  # the server process and the bot workers it started
    db_kib: int
    server_cpu: float  # share of one core since the previous sample


def merge(reports: dict[int, dict[str, Any]], logged: int) -> tuple[dict[str, int], Counter[str]]:
    totals = dict.fromkeys(("matches", "placements", "auto", "reconnects"), 0)
    kinds: Counter[str] = Counter()
    for report in reports.values():
        for key in totals:
            totals[key] += report.get(key, 0)
        kinds.update(report.get("errors", {}))
    if logged:
        kinds["server logged an error"] += logged
    return totals, kinds


# ----------------------------------------------------------------------
# The verdict


def least_squares_slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    n = len(xs)
    if n < 2:
        return 0.0
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return 0.0
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx


def memory_trend(times_s: Sequence[float], rss: Sequence[int], max_growth: float) -> dict[str, Any]:
    """Growth between the second and last thirds of the samples, and the slope after warm-up."""
    n = len(rss)
    if n < MIN_SAMPLES:
        return {"ok": False, "why": f"{n} samples: at least {MIN_SAMPLES} are needed"}
    third = n // 3
    middle = statistics.median(rss[third : 2 * third])
    last = statistics.median(rss[2 * third :])
    growth = (last - middle) / middle * 100 if middle else 0.0
    slope = least_squares_slope([t / 60 for t in times_s[third:]], rss[third:])
    ok = growth < max_growth
    return {
        "ok": ok,
        "second_third_median_kib": middle,
        "last_third_median_kib": last,
        "growth_percent": round(growth, 2),
        "slope_kib_per_min": round(slope, 1),
        "why": f"grew {growth:+.1f} % between the second and last thirds "
        f"({'under' if ok else 'not under'} {max_growth:g} %)",
    }


def verdict(samples: Sequence[Sample], errors: Counter[str], max_growth: float) -> dict[str, Any]:
    judged = [s for s in samples if s.elapsed_s > 0]  # the first, at 0 s, is before any play
    times = [s.elapsed_s for s in judged]
    server = memory_trend(times, [s.rss_kib for s in judged], max_growth)
    tree = memory_trend(times, [s.rss_tree_kib for s in judged], max_growth)
    matches = samples[-1].matches if samples else 0
    failures = []
    if matches == 0:
        failures.append("no match finished")
    if errors:
        failures.append(f"{sum(errors.values())} errors")
    if not server["ok"]:
        failures.append(f"server memory: {server['why']}")
    if not tree["ok"]:
        failures.append(f"server with its bot workers: {tree['why']}")
    return {
        "ok": not failures,
        "failures": failures,
        "max_growth_percent": max_growth,
        "memory": server,
        "memory_with_bot_workers": tree,
    }


# ----------------------------------------------------------------------
# The conductor


@dataclass
class Soak:
    config: dict[str, Any]
    samples: list[Sample]
    errors: Counter[str]
    verdict: dict[str, Any]
    server_log: list[str]

    def as_json(self) -> dict[str, Any]:
        return {
            "config": self.config,
            "samples": [asdict(s) for s in self.samples],
            "errors": dict(self.errors),
            "verdict": self.verdict,
        }


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def run_soak(args: argparse.Namespace) -> Soak:
    specs = room_specs(args.rooms)
    seed = args.seed if args.seed is not None else random.randrange(1_000_000)
    workers = max(1, min(args.workers, args.rooms))
    config = {
        "duration_s": args.duration,
        "sample_s": args.sample,
        "rooms": [spec.describe() for spec in specs],
        "workers": workers,
        "seed": seed,
        "card_clock_ms": CARD_CLOCK_MS,
        "deal_clock_ms": DEAL_CLOCK_MS,
        "cpus": os.cpu_count(),
        "server_command": args.server_command,
    }
    samples: list[Sample] = []
    reports: dict[int, dict[str, Any]] = {}
    ctx = mp.get_context("spawn")
    with (
        tempfile.TemporaryDirectory(prefix="cribsquares-soak-") as tmp,
        game_server(Path(tmp), args.server_command) as server,
    ):
        log = LogWatch(server)
        stop, inbox = ctx.Event(), ctx.Queue()
        url = f"ws://{HOST}:{server.port}/ws"
        procs = [
            ctx.Process(
                target=worker_main,
                args=(url, specs[w::workers], seed, stop, inbox, w),
                daemon=True,
            )
            for w in range(workers)
        ]

        def drain(block_s: float = 0.0) -> None:
            deadline = time.monotonic() + block_s
            while True:
                try:
                    kind, worker, report = inbox.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    return
                reports[worker] = report
                if kind == "done":
                    done.add(worker)

        done: set[int] = set()
        cpu_before, at_before = server.cpu_seconds(), time.monotonic()

        def sample(elapsed: float) -> Sample:
            nonlocal cpu_before, at_before
            drain()
            totals, kinds = merge(reports, log.errors)
            cpu, at = server.cpu_seconds(), time.monotonic()
            share = (cpu - cpu_before) / (at - at_before) if at > at_before else 0.0
            cpu_before, at_before = cpu, at
            main = rss_kib(server.pid)
            s = Sample(
                elapsed_s=round(elapsed, 1),
                matches=totals["matches"],
                placements=totals["placements"],
                errors=sum(kinds.values()),
                auto=totals["auto"],
                reconnects=totals["reconnects"],
                rss_kib=main,
                rss_tree_kib=main + sum(rss_kib(p) for p in descendants(server.pid)),
                db_kib=files_kib(Path(tmp)),
                server_cpu=round(share, 3),
            )
            samples.append(s)
            say(progress_line(s))
            return s

        start = time.monotonic()
        try:
            sample(0.0)
            for proc in procs:
                proc.start()
            k = 1
            while True:
                due = start + k * args.sample
                if due > start + args.duration + 1e-6:
                    break
                time.sleep(max(0.0, due - time.monotonic()))
                sample(time.monotonic() - start)
                k += 1
                if server.proc.poll() is not None:
                    break
        finally:
            stop.set()
            stopping_until = time.monotonic() + 30
            while (
                len(done) < len(procs)
                and any(proc.is_alive() for proc in procs)
                and time.monotonic() < stopping_until
            ):
                drain(0.5)
            drain()
            for proc in procs:
                proc.join(timeout=5)
                if proc.is_alive():
                    proc.terminate()
                    proc.join(timeout=5)
        _, errors = merge(reports, log.errors)
        exited = server.proc.poll()
        if exited is not None:
            errors[f"server exited with code {exited}"] += 1
        server_log = list(log.last)
    return Soak(config, samples, errors, verdict(samples, errors, args.max_growth), server_log)


# ----------------------------------------------------------------------
# Output


def clock(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes}:{secs:02d}"


def progress_line(s: Sample) -> str:
    return (
        f"{clock(s.elapsed_s):>6}  matches {s.matches:,}  errors {s.errors}  "
        f"server RSS {s.rss_kib / 1024:.1f} MiB"
    )


def mib(kib: float) -> str:
    return f"{kib / 1024:.1f}"


def table(soak: Soak) -> str:
    c = soak.config
    lines = [
        f"soak: {clock(c['duration_s'])} (m:ss), a sample every {c['sample_s']:g} s, "
        f"{len(c['rooms'])} rooms in {c['workers']} load-generator processes, "
        f"{c['cpus']} CPUs, seed {c['seed']}",
        "rooms: " + "; ".join(c["rooms"]),
        *([f"server: {c['server_command']}"] if c["server_command"] else []),
        "",
        f"{'elapsed':>7} {'matches':>8} {'placements':>10} {'errors':>6} {'auto':>5} "
        f"{'reconn':>6} {'RSS MiB':>8} {'+bots MiB':>9} {'db MiB':>7} {'CPU':>5}",
    ]
    for s in soak.samples:
        lines.append(
            f"{clock(s.elapsed_s):>7} {s.matches:>8,} {s.placements:>10,} {s.errors:>6} "
            f"{s.auto:>5} {s.reconnects:>6} {mib(s.rss_kib):>8} {mib(s.rss_tree_kib):>9} "
            f"{mib(s.db_kib):>7} {s.server_cpu:>5.0%}"
        )
    lines += [
        "",
        "RSS: the server process; +bots: with the bot workers it started; CPU: share of one",
        "core the server used since the previous sample; auto: cards the server placed because",
        "a clock ran out (not errors); reconn: players that dropped and signed in again.",
        "",
    ]
    last = soak.samples[-1] if soak.samples else None
    if last is not None and last.elapsed_s > 0:
        per_min = last.matches / (last.elapsed_s / 60)
        lines.append(f"matches finished: {last.matches:,} ({per_min:,.0f} per minute)")
    if soak.errors:
        for kind, n in sorted(soak.errors.items()):
            lines.append(f"errors: {n} x {kind}")
    else:
        lines.append("errors: none")
    v = soak.verdict
    for label, trend in (
        ("server", v["memory"]),
        ("with bot workers", v["memory_with_bot_workers"]),
    ):
        if "growth_percent" in trend:
            lines.append(
                f"memory, {label}: median {mib(trend['second_third_median_kib'])} MiB in the "
                f"second third, {mib(trend['last_third_median_kib'])} MiB in the last: "
                f"{trend['growth_percent']:+.1f} % (threshold {v['max_growth_percent']:g} %); "
                f"slope after warm-up {trend['slope_kib_per_min']:+.1f} KiB/min"
            )
        else:
            lines.append(f"memory, {label}: {trend['why']}")
    if v["ok"]:
        lines.append("verdict: passed (matches finished, no errors, memory not growing)")
    else:
        lines.append("verdict: FAILED: " + "; ".join(v["failures"]))
        if soak.server_log:
            lines.append("last lines of the server's output:")
            lines += [f"  {line}" for line in soak.server_log]
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.bench_soak",
        description="Soak test of the game server: bot matches back to back, memory watched "
        "(see the module docstring).",
    )
    p.add_argument(
        "--duration",
        type=float,
        default=DEFAULT_DURATION_S,
        metavar="SECONDS",
        help=f"how long to play (default {DEFAULT_DURATION_S:g})",
    )
    p.add_argument(
        "--rooms",
        type=int,
        default=DEFAULT_ROOMS,
        help=f"rooms playing at once, 1..250 (default {DEFAULT_ROOMS})",
    )
    p.add_argument(
        "--sample",
        type=float,
        default=None,
        metavar="SECONDS",
        help="seconds between samples (default: a sixtieth of the duration, at least 1)",
    )
    p.add_argument(
        "--max-growth",
        type=float,
        default=DEFAULT_MAX_GROWTH,
        metavar="PERCENT",
        help="memory growth between the second and last thirds of the samples that fails "
        f"the soak (default {DEFAULT_MAX_GROWTH:g})",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=DEFAULT_WORKERS,
        help=f"load-generator processes (default {DEFAULT_WORKERS})",
    )
    p.add_argument("--seed", type=int, default=None, help="seed of the bots' choices")
    p.add_argument(
        "--server-command",
        metavar="CMD",
        help="run CMD instead of 'python -m client_cli serve', to soak a variant of the "
        "server: it gets --host, --port 0, --db and --grace and must announce its address "
        "as serve does",
    )
    p.add_argument("--json", action="store_true", help="print the samples and verdict as JSON")
    args = p.parse_args(argv)
    if not 0 < args.duration <= 7 * 24 * 3600:
        p.error("--duration must be more than 0 seconds and at most a week")
    if not 1 <= args.rooms <= 250:
        p.error("--rooms must be 1..250")
    if not 1 <= args.workers <= 64:
        p.error("--workers must be 1..64")
    if args.sample is None:
        args.sample = max(1.0, args.duration / 60)
    if not 0 < args.sample <= args.duration:
        p.error("--sample must be more than 0 and at most the duration")
    if args.max_growth <= 0:
        p.error("--max-growth must be positive")
    return args


def main(argv: Sequence[str] | None = None, out: Callable[[str], None] = print) -> int:
    args = parse_args(argv)
    soak = run_soak(args)
    out(json.dumps(soak.as_json(), indent=2) if args.json else table(soak))
    return 0 if soak.verdict["ok"] else 1


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        raise SystemExit(130) from None
