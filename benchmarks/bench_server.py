"""Load benchmark of the game server: bot players in 4-seat lockstep rooms over loopback.

    python -m benchmarks.bench_server [--players 2000] [--duration 60] [--mode paced|flat|both]
                                      [--nodes 1|2 [--together | --follow-hints]]

What it does, all on 127.0.0.1, bounded in time, cleaning up after itself:

1. ``echo``: a bare aiohttp WebSocket echo server (a subprocess of this module)
   and the same number of connections as players, each sending a place-sized
   JSON frame and waiting for it to come back, flat out. Its round trips per
   second are the ceiling of this machine for this client code path.
2. ``paced``: the real server (``python -m client_cli serve`` on a free port with
   a temporary database) and ``--players`` bots in 4-seat lockstep rooms, each
   placing a random legal cell about ``--think`` seconds (±25 %) after its card
   arrives, match after match, for ``--duration`` seconds. The rooms' first
   deals are spread over ``--stagger`` seconds (17, about one match), as players
   arriving over time would be; ``--stagger 0`` starts every room within one
   think time, so all matches end in the same second (a worst-case burst).
3. ``flat``: the same, but every bot places as soon as its card arrives.

The players run in ``--workers`` processes, each an asyncio loop holding many
``websockets`` connections (the client library the terminal client uses). A
room's four players live in the same process. They speak protocol 2, where a
frame may hold several messages (``--protocol 1``: one message a frame, what a
server from before protocol 2 speaks, for ``--server-command``).

Latencies, in milliseconds, taken on the client with a monotonic clock:

* **ack**: from sending ``place`` to receiving its ``placed`` (every placement);
* **turn**: for the *last* placer of a turn (the one whose placement completes
  it: the room's four bots share one process, which notes who sent each
  turn's last ``place``), from sending ``place`` to receiving the next
  ``card``: the server's turn-around. Turns 1..15;
* **result**: the same for turn 16, up to ``match_result`` (scoring, ranking).

Errors are ``error`` frames, cards the server placed itself (``auto``), dropped
connections, timeouts and refused setups. Server memory is VmRSS from
/proc/<pid>/status: before anyone connects, once every player is signed in and
seated (per connected player), and at the end of the timed window.

``--store postgresql`` runs the game server(s) on a PostgreSQL cluster of its
own (tests/services/postgres.py) instead of a SQLite file, and counts the
transactions committed and the rows written per placement
(``pg_stat_database``).

``--nodes 2`` runs the paced and flat phases on a cluster instead: a
redis-server of its own (tests/services/redis.py) and two ``serve --redis``
nodes on one database; room *r*'s seat *s* connects to node ``(r + s) % 2``,
so each room's creator (and owner) alternates between the nodes and half of
every room's players are on the other node: every second placement is
forwarded. It adds the CPU of each node, and the Redis commands per
placement (``INFO stats`` before and after the window). ``--together`` puts
each room's players on one node instead (room *r*'s all on node ``r % 2``,
which creates and owns it): no placement is forwarded, as if every player had
been routed to the node that owns its room, so the difference between the two
is what forwarding costs and what is left is the rest of the coordination
(leases, fences, the shared lists, presence). ``--follow-hints`` (spread, as
without it) has every player say ``follow_node`` in its ``hello`` and follow
the server's ``node_hint`` as docs/protocol.md says a client does: once its
room is seated and nothing it sent is unanswered (a ``ping`` answered), a
player hinted that its room runs on another node closes its connection and
connects straight to that node (the load generator knows each node id's
port, as the public address's ``?node=`` map does), signs in again with its
token and takes the room's snapshot. After its first room a player is on its
room's node, and the rooms it opens from then on are opened there: what
routing by hints saves in the long run, and what following them costs (a
reconnection a hinted player, counted).

Only samples whose ``place`` was sent inside the timed window (after
``--warmup`` seconds, and in the paced phase after the stagger) count.
``--repeat`` runs every phase again and prints the median of each figure.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import multiprocessing as mp
import os
import random
import re
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HOST = "127.0.0.1"
SEATS = 4
CARD_CLOCK_MS = 30_000
RECV_TIMEOUT_S = CARD_CLOCK_MS / 1000 + 5
SETUP_TIMEOUT_S = 120.0  # connecting, signing in and seating everyone
CONNECT_CONCURRENCY = 64  # per worker: handshakes in flight at once
ROOT = Path(__file__).resolve().parent.parent


# ----------------------------------------------------------------------
# Subprocesses: the real server and the echo server


def _die_with_parent() -> None:
    """Linux: the child gets SIGTERM if this process dies, even by SIGKILL."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class Child:
    """A server subprocess that announces its port on stdout; killed on exit."""

    def __init__(self, argv: Sequence[str], pattern: str) -> None:
        self.proc = subprocess.Popen(
            argv,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            preexec_fn=_die_with_parent if sys.platform == "linux" else None,
        )
        deadline = time.monotonic() + 30
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            found = re.search(pattern, line)
            if found:
                self.port = int(found.group(1))
                break
            if time.monotonic() > deadline:
                break
        else:
            self.stop()
            raise RuntimeError(f"{argv[2:]} did not start")
        if not hasattr(self, "port"):
            self.stop()
            raise RuntimeError(f"{argv[2:]} did not announce its port")
        # Read what it says from now on, so that a server logging much never blocks on
        # a full pipe; keep the lines that tell of a failure, to show at the end.
        self.failures: collections.deque[str] = collections.deque(maxlen=40)
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        assert self.proc.stdout is not None
        with contextlib.suppress(ValueError, OSError):  # closed by stop()
            for line in self.proc.stdout:
                if " ERROR " in line or "Traceback" in line or line.startswith(("  ", "\t")):
                    self.failures.append(line.rstrip())

    @property
    def pid(self) -> int:
        return self.proc.pid

    def rss_kib(self) -> int:
        """Resident set size (VmRSS) in KiB, 0 where /proc is not available."""
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def cpu_seconds(self) -> float:
        """User plus system CPU time used so far (/proc/<pid>/stat), 0 without /proc."""
        with contextlib.suppress(OSError, ValueError, IndexError):
            stat = Path(f"/proc/{self.pid}/stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return 0.0

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if hasattr(self, "_reader"):
            self._reader.join(2)  # it has exited: the pipe is at its end
        if self.proc.stdout is not None:
            self.proc.stdout.close()


@contextlib.contextmanager
def game_server(
    tmp: Path, command: str | None = None, extra: Sequence[str] = (), db: str | None = None
) -> Iterator[Child]:
    db = db or str(tmp / f"bench-{os.getpid()}-{time.monotonic_ns()}.db")
    base = shlex.split(command) if command else [sys.executable, "-m", "client_cli", "serve"]
    argv = [*base, "--host", HOST, "--port", "0", *extra]
    option = "--store" if db.startswith("postgresql://") else "--db"
    child = Child([*argv, option, db, "--grace", "5"], r"http://[\d.]+:(\d+)")
    try:
        yield child
    finally:
        child.stop()
        if child.failures:
            print(f"the server on port {child.port} logged failures (the last lines):",
                  *child.failures, sep="\n  ", file=sys.stderr)  # fmt: skip


@dataclass
class Counters:
    """What the shared services did, read before and after the window."""

    redis: Any = None  # a Redis client (a cluster)
    postgres: Any = None  # (tests.services.postgres.Cluster, database name)

    def read(self) -> tuple[int, int, int]:
        """Redis commands, PostgreSQL transactions committed, rows written."""
        commands = int(self.redis.info("stats")["total_commands_processed"]) if self.redis else 0
        commits = rows = 0
        if self.postgres is not None:
            cluster, name = self.postgres
            out = cluster.psql(
                "SELECT xact_commit, tup_inserted + tup_updated + tup_deleted"
                f" FROM pg_stat_database WHERE datname = '{name}'"
            )
            commits, rows = (int(x) for x in out.strip().split("|"))
        return commands, commits, rows


@contextlib.contextmanager
def servers(
    phase: str, args: argparse.Namespace, tmp: Path
) -> Iterator[tuple[list[Child], Counters]]:
    """The servers of a phase (the echo server; the game server; or a cluster of
    ``--nodes``), on ``--store``, and what counts the shared services' work."""
    counters = Counters()
    if phase == "echo":
        with echo_server() as echo:
            yield [echo], counters
        return
    with contextlib.ExitStack() as stack:
        db: str | None = None
        if args.store == "postgresql":
            from tests.services import postgres

            cluster = stack.enter_context(postgres.cluster())
            name = cluster.create_database("bench")
            db = cluster.url(name)
            counters.postgres = (cluster, name)
        if args.nodes == 1:
            yield [stack.enter_context(game_server(tmp, args.server_command, db=db))], counters
            return
        yield from _cluster(stack, args, tmp, db, counters)


def _cluster(
    stack: contextlib.ExitStack,
    args: argparse.Namespace,
    tmp: Path,
    db: str | None,
    counters: Counters,
) -> Iterator[tuple[list[Child], Counters]]:
    import redis

    from tests.services.redis import redis_server

    db = db or str(tmp / f"cluster-{os.getpid()}-{time.monotonic_ns()}.db")
    url = stack.enter_context(redis_server())
    nodes = [
        stack.enter_context(
            game_server(tmp, args.server_command, ("--redis", url, "--node-id", f"n{i}"), db)
        )
        for i in range(args.nodes)
    ]
    counters.redis = stack.enter_context(redis.Redis.from_url(url))
    yield nodes, counters


@contextlib.contextmanager
def echo_server() -> Iterator[Child]:
    child = Child([sys.executable, "-m", "benchmarks.bench_server", "--echo-server"], r"echo (\d+)")
    try:
        yield child
    finally:
        child.stop()


def run_echo_server() -> None:
    """A bare aiohttp WebSocket echo server: the ceiling the game server is compared with.

    It runs on the same event loop as the game server (uvloop where installed),
    so the comparison is between the programs, not the loops.
    """
    from aiohttp import WSMsgType, web

    from server.config import ServerConfig
    from server.shell.runtime import event_loop_factory

    # Negotiates permessage-deflate exactly when the game server does (by default
    # not): a ceiling that compresses every frame would flatter the game server.
    compress = ServerConfig().compress

    async def echo(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(compress=compress)
        await ws.prepare(request)
        async for frame in ws:
            if frame.type == WSMsgType.TEXT:
                await ws.send_str(frame.data)
        return ws

    async def main() -> None:
        app = web.Application()
        app.router.add_get("/ws", echo)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, HOST, 0)
        await site.start()
        print(f"echo {runner.addresses[0][1]}", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        await runner.cleanup()

    with asyncio.Runner(loop_factory=event_loop_factory()) as loop_runner:
        loop_runner.run(main())


# ----------------------------------------------------------------------
# The load generator (runs in worker processes)


@dataclass(frozen=True)
class Job:
    """What one worker process does: ``players`` connections for one phase."""

    phase: str  # echo | paced | flat
    urls: tuple[str, ...]  # one per node: room r's seat s connects to (r + s) % nodes
    together: bool  # or every seat of room r to node r % nodes
    node_ids: tuple[str, ...]  # the id of each node of ``urls``, in the same order
    follow_hints: bool  # say follow_node, and reconnect to the node a node_hint names
    worker: int
    players: int
    think_s: float  # 0: flat out
    stagger_s: float  # paced: first deals spread over this long
    warmup_s: float
    duration_s: float
    compression: bool
    protocol: int  # what the bots' hello says: 2 (batched frames) or 1
    seed: int


@dataclass
class Stats:
    ack: list[float] = field(default_factory=list)
    turn: list[float] = field(default_factory=list)
    result: list[float] = field(default_factory=list)
    rtt: list[float] = field(default_factory=list)
    placements: int = 0  # acknowledged, sent inside the window
    matches: int = 0  # finished inside the window
    errors: Counter[str] = field(default_factory=Counter)


class Window:
    def __init__(self, warmup_s: float, duration_s: float) -> None:
        self.start = time.perf_counter() + warmup_s
        self.end = self.start + duration_s

    def inside(self, t: float) -> bool:
        return self.start <= t < self.end

    def over(self) -> bool:
        return time.perf_counter() >= self.end


class Bot:
    """One connection of the load generator.

    It reads messages, not frames: a protocol-2 frame may hold several
    (docs/protocol.md, *Frames*), which wait in ``held`` with the time their
    frame arrived."""

    def __init__(self, ws: Any, name: str, index: int = 0) -> None:
        self.ws = ws
        self.name = name
        self.index = index  # its place in its worker (its room, seat and source address)
        self.id = ""
        self.token = ""
        self.hint: str | None = None  # the node a node_hint named, not followed yet
        self.moved = 0  # hints followed
        self.held: deque[tuple[float, str, dict[str, Any]]] = deque()

    async def next(self) -> tuple[float, str, str | dict[str, Any]]:
        """The next message: when its frame arrived, its type, and its text (a frame of
        its own, parsed only if wanted: :func:`loaded`) or its parsed form. A
        ``node_hint`` is noted (``hint``), not returned."""
        while True:
            found = await self._next()
            if found[1] != "node_hint":
                return found
            self.hint = str(loaded(found[2])["node"])

    async def _next(self) -> tuple[float, str, str | dict[str, Any]]:
        if self.held:
            return self.held.popleft()
        text = await self.recv_text()
        now = time.perf_counter()
        if text.startswith("["):
            for message in json.loads(text):
                self.held.append((now, str(message.get("type", "")), message))
            return self.held.popleft()
        return now, message_type(text), text

    async def send(self, **message: Any) -> None:
        await self.ws.send(json.dumps(message))

    async def recv_text(self) -> str:
        # asyncio.timeout, not wait_for: wait_for wraps every receive in a new task,
        # which cost the load generator a quarter of its time.
        async with asyncio.timeout(RECV_TIMEOUT_S):
            return await self.ws.recv()  # type: ignore[no-any-return]

    async def recv(self) -> dict[str, Any]:
        return loaded((await self.next())[2])

    async def until(self, *types: str) -> dict[str, Any]:
        while True:
            message = await self.recv()
            if message["type"] in types:
                return message
            if message["type"] == "error":
                raise SetupError(f"{message['code']}: {message['reason']}")


class SetupError(Exception):
    pass


def loaded(message: str | dict[str, Any]) -> dict[str, Any]:
    """A message of :meth:`Bot.next` parsed."""
    return json.loads(message) if isinstance(message, str) else message  # type: ignore[no-any-return]


def message_type(text: str) -> str:
    """The ``type`` of a server frame without parsing all of it.

    The server writes compact JSON with ``type`` first; anything else is parsed.
    The load generator parses only the frames it reads (card, placed, error):
    it shares the machine with the server it measures.
    """
    if text.startswith('{"type":"'):
        end = text.find('"', 9)
        if end > 0:
            return text[9:end]
    kind = json.loads(text).get("type")
    return kind if isinstance(kind, str) else ""


# The server admits 32 connections per remote address, and counts joins, rooms and
# sign-ins per address (server/config.py): each room's players connect from a
# loopback address of their own (127.0.0.0/8 is all loopback), so that bots playing
# a match every few seconds stay within the quotas meant for people.
PLAYERS_PER_ADDRESS = 4


def source_address(worker: int, index: int) -> str | None:
    """The loopback address player ``index`` of ``worker`` connects from (None: any)."""
    if HOST != "127.0.0.1" or sys.platform != "linux":
        return None
    group = index // PLAYERS_PER_ADDRESS
    return f"127.{10 + worker}.{group // 250}.{2 + group % 250}"


async def open_socket(job: Job, index: int, url: str) -> Any:
    from websockets.asyncio.client import connect as ws_connect

    options: dict[str, Any] = {}
    source = source_address(job.worker, index)
    if source is not None:
        options["local_addr"] = (source, 0)
    return await ws_connect(
        url,
        open_timeout=30,
        max_size=2**22,
        compression="deflate" if job.compression else None,
        ping_interval=None,  # the server's heartbeat keeps the connection checked
        **options,
    )


async def connect(job: Job, index: int, name: str, gate: asyncio.Semaphore) -> Bot:
    urls = job.urls
    room, seat = divmod(index, SEATS)
    url = urls[(room if job.together else room + seat) % len(urls)]
    async with gate:
        bot = Bot(await open_socket(job, index, url), name, index)
        if job.phase != "echo":
            hello: dict[str, Any] = {"follow_node": True} if job.follow_hints else {}
            await bot.send(
                type="hello", protocol=job.protocol, name=name, bot=True, client="bench", **hello
            )
            welcome = await bot.until("welcome")
            bot.id = welcome["player"]["id"]
            bot.token = welcome["token"]
        return bot


async def follow_hint(bot: Bot, job: Job) -> None:
    """``bot`` was hinted that its room runs on another node: to that node, straight
    (its port known, as the public address's ``?node=`` map knows it), signed in again
    with its token, and its room's snapshot taken."""
    node, bot.hint = bot.hint, None
    if node not in job.node_ids:
        return
    await bot.ws.close()
    bot.held.clear()
    bot.ws = await open_socket(job, bot.index, job.urls[job.node_ids.index(node)])
    await bot.send(type="hello", protocol=job.protocol, token=bot.token, follow_node=True)
    await bot.until("welcome")
    await bot.until("room_state")
    bot.moved += 1


async def seat(bots: Sequence[Bot], job: Job) -> str:
    """The first bot opens a 4-seat lockstep room, the others join: nobody is ready yet
    (``--follow-hints``: a bot hinted that the room runs on another node goes there)."""
    creator = bots[0]
    await creator.send(
        type="create_room", name="bench", seats=len(bots), card_clock_ms=CARD_CLOCK_MS
    )
    room_id: str = (await creator.until("room_state"))["room"]["id"]
    for bot in bots[1:]:
        await bot.send(type="join_room", room_id=room_id)
        await bot.until("room_state")
    if job.follow_hints:
        for bot in bots:  # nothing unanswered, and a hint sent meanwhile read
            await bot.send(type="ping")
            await bot.until("pong")
            if bot.hint is not None:
                await follow_hint(bot, job)
    return room_id


class LastPlacer:
    """Who in a room sent the last ``place`` of each turn, and when.

    A room's four bots share one of these (they live in the same process and
    send in time order), so the player whose placement completed a turn is
    known without asking the server how it announces progress.
    """

    def __init__(self) -> None:
        self.sent: dict[int, tuple[float, str]] = {}  # turn -> (sent at, bot name)

    def note(self, turn: int, at: float, name: str) -> None:
        self.sent[turn] = (at, name)

    def was(self, turn: int, name: str) -> float | None:
        """When ``name`` sent the last placement of ``turn``; None if someone else did."""
        found = self.sent.get(turn)
        return found[0] if found is not None and found[1] == name else None


async def play_match(
    bot: Bot, room_id: str, job: Job, window: Window, stats: Stats, last: LastPlacer
) -> None:
    """Play one match to its result, timing this bot's placements."""
    rng = random.Random(f"{job.seed}-{bot.name}")
    sent_at = 0.0
    sent_turn = 0
    while True:
        now, kind, raw = await bot.next()
        if kind in ("progress", "room"):
            continue
        message: dict[str, Any] = loaded(raw) if kind != "match_result" else {}
        if kind == "card":
            completed = last.was(message["turn"] - 1, bot.name)
            if completed is not None and window.inside(completed):
                stats.turn.append((now - completed) * 1000)
            if window.over():
                return
            if job.think_s:
                await asyncio.sleep(job.think_s * rng.uniform(0.75, 1.25))
            sent_turn = message["turn"]
            cell = rng.choice(message["legal"])
            sent_at = time.perf_counter()
            last.note(sent_turn, sent_at, bot.name)
            await bot.send(type="place", room_id=room_id, turn=sent_turn, cell=cell)
        elif kind == "placed":
            if message.get("auto"):
                stats.errors["auto placement (too late)"] += 1
            elif message["turn"] == sent_turn and window.inside(sent_at):
                stats.placements += 1
                stats.ack.append((now - sent_at) * 1000)
        elif kind == "match_result":
            completed = last.was(16, bot.name)
            if completed is not None and window.inside(completed):
                stats.result.append((now - completed) * 1000)
                stats.matches += 1
            return
        elif kind == "error":
            stats.errors[f"error {message['code']}"] += 1


async def room_loop(bots: list[Bot], room_id: str, job: Job, window: Window, stats: Stats) -> None:
    """Matches back to back: ready, play, leave, open the next room (creator rotates)."""
    rng = random.Random(f"{job.seed}-{room_id}")
    if job.think_s:  # spread the first deals, as players arriving over time would
        await asyncio.sleep(rng.uniform(0, max(job.think_s, job.stagger_s)))
    while not window.over():
        for bot in bots:
            await bot.send(type="ready", room_id=room_id)
        last = LastPlacer()
        await asyncio.gather(*(play_match(b, room_id, job, window, stats, last) for b in bots))
        if window.over():
            return
        for bot in bots:
            await bot.send(type="leave_room", room_id=room_id)
            await bot.until("left")
        bots = bots[1:] + bots[:1]
        room_id = await seat(bots, job)


async def echo_loop(bot: Bot, job: Job, window: Window, stats: Stats) -> None:
    """Send a place-sized frame, wait for it to come back, again, flat out."""
    n = 0
    while not window.over():
        n += 1
        frame = {"type": "place", "room_id": "bench-room-id", "turn": n % 16 + 1, "cell": "b3"}
        sent_at = time.perf_counter()
        await bot.send(**frame)
        await bot.recv()
        now = time.perf_counter()
        if window.inside(sent_at):
            stats.placements += 1
            stats.rtt.append((now - sent_at) * 1000)


async def run_job(job: Job, ready: Any, start: Any) -> dict[str, Any]:
    stats = Stats()
    gate = asyncio.Semaphore(CONNECT_CONCURRENCY)
    names = [f"b{job.seed % 1000}-{job.worker}-{i}" for i in range(job.players)]
    try:
        got = await asyncio.wait_for(
            asyncio.gather(
                *(connect(job, i, n, gate) for i, n in enumerate(names)), return_exceptions=True
            ),
            SETUP_TIMEOUT_S,
        )
        bots = [b for b in got if isinstance(b, Bot)]
        for failure in got:
            if not isinstance(failure, Bot):
                stats.errors[f"connect {type(failure).__name__}"] += 1
        rooms: list[tuple[list[Bot], str]] = []
        if job.phase != "echo":
            groups = [bots[i : i + SEATS] for i in range(0, len(bots) - SEATS + 1, SEATS)]
            ids = await asyncio.wait_for(
                asyncio.gather(*(seat(g, job) for g in groups), return_exceptions=True),
                SETUP_TIMEOUT_S,
            )
            for group, room_id in zip(groups, ids, strict=True):
                if isinstance(room_id, str):
                    rooms.append((group, room_id))
                else:
                    stats.errors[f"seat {type(room_id).__name__}"] += 1
    except TimeoutError:
        stats.errors["setup timeout"] += 1
        bots, rooms = [], []
    ready.put((job.worker, len(bots)))
    while not start.is_set():
        await asyncio.sleep(0.02)
    window = Window(job.warmup_s, job.duration_s)
    cpu_at_start = time.process_time()
    if job.phase == "echo":
        tasks = [asyncio.ensure_future(echo_loop(b, job, window, stats)) for b in bots]
    else:
        tasks = [asyncio.ensure_future(room_loop(g, r, job, window, stats)) for g, r in rooms]
    if tasks:
        done, pending = await asyncio.wait(tasks, timeout=window.end - time.perf_counter() + 2)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        for task in done:
            exc = task.exception()
            if exc is not None:  # a server's refusal by its code, anything else by its type
                why = str(exc).split(":")[0] if isinstance(exc, SetupError) else ""
                stats.errors[f"dropped {type(exc).__name__} {why}".rstrip()] += 1
    report = {
        "cpu_s": time.process_time() - cpu_at_start,
        "connected": len(bots),
        "placements": stats.placements,
        "matches": stats.matches,
        "ack": stats.ack,
        "turn": stats.turn,
        "result": stats.result,
        "rtt": stats.rtt,
        "errors": dict(stats.errors),
        "seconds": job.duration_s,
        "moved": sum(b.moved for b in bots),
    }
    await asyncio.gather(*(asyncio.wait_for(b.ws.close(), 5) for b in bots), return_exceptions=True)
    return report


def _loop_factory() -> Any:
    from server.shell.runtime import event_loop_factory

    return event_loop_factory()


class _Signal:
    """The worker's ready signal: sent exactly once, even if the job fails midway."""

    def __init__(self, queue: Any) -> None:
        self.queue = queue
        self.sent = False

    def put(self, item: Any) -> None:
        if not self.sent:
            self.sent = True
            self.queue.put(item)


def worker_main(job: Job, ready: Any, start: Any, results: Any, parent: int) -> None:
    from server.bots import die_with_parent

    # A conductor killed mid-run (SIGTERM, SIGKILL) takes its load generator with it.
    die_with_parent(parent)
    signal_ = _Signal(ready)
    with contextlib.suppress(KeyboardInterrupt):
        try:
            # The same event loop as the servers: the generator shares their cores.
            with asyncio.Runner(loop_factory=_loop_factory()) as runner:
                results.put(runner.run(run_job(job, signal_, start)))
        except Exception as exc:
            signal_.put((job.worker, 0))
            results.put({"connected": 0, "errors": {f"worker {exc!r}": 1}})


# ----------------------------------------------------------------------
# The conductor


@dataclass
class Figures:
    phase: str
    players: int
    connected: int = 0
    per_second: float = 0.0  # placements (or echo round trips) per second
    matches: int = 0
    ack_p50: float = 0.0
    ack_p99: float = 0.0
    turn_p50: float = 0.0
    turn_p99: float = 0.0
    result_p50: float = 0.0
    result_p99: float = 0.0
    errors: int = 0
    error_kinds: dict[str, int] = field(default_factory=dict)
    rss_idle_mib: float = 0.0
    rss_seated_mib: float = 0.0
    rss_end_mib: float = 0.0
    kib_per_player: float = 0.0
    server_cpu: float = 0.0  # share of one core the server used in the window
    us_per_op: float = 0.0  # server CPU microseconds per placement (echo: per round trip)
    node_cpu: list[float] = field(default_factory=list)  # --nodes 2: each node's share
    redis_per_op: float = 0.0  # --nodes 2: Redis commands per placement
    commits_per_op: float = 0.0  # --store postgresql: transactions committed per placement
    rows_per_op: float = 0.0  # --store postgresql: rows written per placement
    moved: float = 0.0  # --follow-hints: players who followed a node_hint (reconnected)
    load_cpu: float = 0.0  # cores the load generator used, warm-up included
    loadavg: float = 0.0  # 1-minute load average at the end of the window


def percentile(samples: list[float], q: float) -> float:
    if not samples:
        return 0.0
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]


def split(total: int, parts: int, unit: int) -> list[int]:
    """``total`` players over ``parts`` workers, in whole rooms of ``unit``."""
    rooms = total // unit
    return [unit * (rooms // parts + (1 if i < rooms % parts else 0)) for i in range(parts)]


def run_phase(phase: str, args: argparse.Namespace, tmp: Path, seed: int) -> Figures:
    figures = Figures(phase, args.players)
    ctx = mp.get_context("spawn")
    with servers(phase, args, tmp) as (nodes, counters):
        server = nodes[0]
        time.sleep(0.5)
        figures.rss_idle_mib = server.rss_kib() / 1024
        ready, results, start = ctx.Queue(), ctx.Queue(), ctx.Event()
        unit = 1 if phase == "echo" else SEATS
        counts = [n for n in split(args.players, args.workers, unit) if n]
        think = args.think if phase == "paced" else 0.0
        # Timing starts once every room has begun: after the stagger, if longer.
        warmup = max(args.warmup, args.stagger) if phase == "paced" else args.warmup
        procs = []
        try:
            for worker, n in enumerate(counts):
                job = Job(
                    phase=phase,
                    urls=tuple(f"ws://{HOST}:{n.port}/ws" for n in nodes),
                    together=args.together,
                    node_ids=tuple(f"n{i}" for i in range(len(nodes))),
                    follow_hints=args.follow_hints,
                    worker=worker,
                    players=n,
                    think_s=think,
                    stagger_s=args.stagger,
                    warmup_s=warmup,
                    duration_s=args.duration if phase == "paced" else args.flat_duration,
                    compression=args.compression,
                    protocol=args.protocol,
                    seed=seed,
                )
                proc = ctx.Process(
                    target=worker_main, args=(job, ready, start, results, os.getpid())
                )
                proc.daemon = True
                proc.start()
                procs.append(proc)
            for _ in procs:
                ready.get(timeout=SETUP_TIMEOUT_S + 30)
            time.sleep(0.5)
            figures.rss_seated_mib = server.rss_kib() / 1024
            start.set()
            window = args.duration if phase == "paced" else args.flat_duration
            time.sleep(warmup)
            cpu_before = [n.cpu_seconds() for n in nodes]
            before = counters.read()
            time.sleep(window - 0.5)
            figures.node_cpu = [
                (n.cpu_seconds() - before) / (window - 0.5)
                for n, before in zip(nodes, cpu_before, strict=True)
            ]
            figures.server_cpu = sum(figures.node_cpu)
            commands, commits, rows = (b - a for a, b in zip(before, counters.read(), strict=True))
            figures.rss_end_mib = server.rss_kib() / 1024
            figures.loadavg = os.getloadavg()[0]
            reports = [results.get(timeout=60) for _ in procs]
        finally:
            for proc in procs:
                proc.join(timeout=10)
                if proc.is_alive():
                    proc.terminate()
                    proc.join(timeout=5)
    seconds = args.duration if phase == "paced" else args.flat_duration
    merged: dict[str, list[float]] = {k: [] for k in ("ack", "turn", "result", "rtt")}
    kinds: Counter[str] = Counter()
    placements = 0
    for report in reports:
        figures.load_cpu += report.get("cpu_s", 0.0) / (args.warmup + seconds)
        figures.connected += report["connected"]
        placements += report.get("placements", 0)
        figures.matches += report.get("matches", 0)
        figures.moved += report.get("moved", 0)
        for key in merged:
            merged[key] += report.get(key, [])
        kinds.update(report.get("errors", {}))
    figures.per_second = placements / seconds
    if figures.per_second:
        figures.us_per_op = figures.server_cpu / figures.per_second * 1e6
        figures.redis_per_op = commands / (window - 0.5) / figures.per_second
        figures.commits_per_op = commits / (window - 0.5) / figures.per_second
        figures.rows_per_op = rows / (window - 0.5) / figures.per_second
    lat = merged["rtt"] if phase == "echo" else merged["ack"]
    figures.ack_p50, figures.ack_p99 = percentile(lat, 50), percentile(lat, 99)
    figures.turn_p50, figures.turn_p99 = (
        percentile(merged["turn"], 50),
        percentile(merged["turn"], 99),
    )
    figures.result_p50 = percentile(merged["result"], 50)
    figures.result_p99 = percentile(merged["result"], 99)
    missing = args.players - figures.connected
    if phase != "echo":
        missing = (args.players // SEATS) * SEATS - figures.connected
    if missing > 0:
        kinds["players not connected"] += missing
    figures.error_kinds = dict(kinds)
    figures.errors = sum(kinds.values())
    if figures.connected:
        figures.kib_per_player = (
            (figures.rss_seated_mib - figures.rss_idle_mib) * 1024 / figures.connected
        )
    return figures


def median_figures(runs: list[Figures]) -> Figures:
    if len(runs) == 1:
        return runs[0]
    out = Figures(runs[0].phase, runs[0].players)
    for name in Figures.__dataclass_fields__:
        if name in ("phase", "players", "error_kinds", "node_cpu"):
            continue
        setattr(out, name, statistics.median(getattr(r, name) for r in runs))
    kinds: Counter[str] = Counter()
    for r in runs:
        kinds.update(r.error_kinds)
    out.error_kinds = dict(kinds)
    return out


def loop_name() -> str:
    from server.shell.runtime import event_loop_factory

    return "asyncio" if event_loop_factory() is None else "uvloop"


def table(results: dict[str, Figures], args: argparse.Namespace) -> str:
    def ms(x: float) -> str:
        return f"{x:.1f}" if x else "-"

    lines = [
        f"players {args.players}, workers {args.workers}, think {args.think:g} s (paced), "
        f"window {args.duration:g} s paced / {args.flat_duration:g} s flat+echo after "
        f"{args.warmup:g} s warm-up (paced: first deals spread over {args.stagger:g} s, timing "
        f"after {max(args.warmup, args.stagger):g} s), "
        f"compression {'deflate' if args.compression else 'off'}, protocol {args.protocol}, "
        f"{os.cpu_count()} CPUs, echo server on {loop_name()}, {args.nodes} node(s) on "
        f"{args.store}"
        + (", each room's players on its node" if args.nodes > 1 and args.together else "")
        + (", following node hints" if args.follow_hints else "")
        + (f", median of {args.repeat} runs" if args.repeat > 1 else ""),
        "",
        f"{'phase':<7} {'conn':>5} {'per s':>8} {'matches':>7} {'ack p50':>8} {'ack p99':>8} "
        f"{'turn p50':>8} {'turn p99':>8} {'res p50':>8} {'res p99':>8} {'errors':>6}",
    ]
    for phase, f in results.items():
        lines.append(
            f"{phase:<7} {f.connected:>5.0f} {f.per_second:>8.0f} {f.matches:>7.0f} "
            f"{ms(f.ack_p50):>8} {ms(f.ack_p99):>8} {ms(f.turn_p50):>8} {ms(f.turn_p99):>8} "
            f"{ms(f.result_p50):>8} {ms(f.result_p99):>8} {f.errors:>6.0f}"
        )
    lines.append("")
    lines.append("per s: placements acknowledged per second (echo: round trips per second);")
    lines.append("echo latencies are in the ack columns (round trip).")
    lines.append("")
    lines.append(
        f"{'phase':<7} {'server CPU':>10} {'µs/op':>7} {'ops/s at 1 core':>15} "
        f"{'load-gen CPU':>12} {'load avg':>8}"
    )
    for phase, f in results.items():
        ceiling = 1e6 / f.us_per_op if f.us_per_op else 0
        lines.append(
            f"{phase:<7} {f.server_cpu:>10.0%} {f.us_per_op:>7.0f} {ceiling:>15.0f} "
            f"{f.load_cpu:>12.2f} {f.loadavg:>8.2f}"
        )
    lines.append(
        "server CPU: share of one core the server process used in the window; µs/op: its CPU "
        "per placement (echo: per round trip); load-gen CPU: cores used by the load generator."
    )
    if args.store == "postgresql":
        for phase, f in results.items():
            if phase != "echo":
                lines.append(
                    f"{phase} on PostgreSQL: {f.commits_per_op:.3f} transactions committed and "
                    f"{f.rows_per_op:.2f} rows written per placement"
                )
    if args.nodes > 1:
        for phase, f in results.items():
            if phase != "echo":
                shares = ", ".join(f"{c:.0%}" for c in f.node_cpu)
                lines.append(
                    f"{phase} on {args.nodes} nodes: CPU per node {shares} (the sum above); "
                    f"{f.redis_per_op:.2f} Redis commands per placement"
                    + (f"; {f.moved:.0f} players followed a node_hint" if args.follow_hints else "")
                )
    lines.append("")
    for phase, f in results.items():
        if phase != "echo":
            lines.append(
                f"{phase} server RSS: {f.rss_idle_mib:.1f} MiB idle, {f.rss_seated_mib:.1f} MiB "
                f"with {f.connected:.0f} players seated ({f.kib_per_player:.1f} KiB per player), "
                f"{f.rss_end_mib:.1f} MiB at the end"
            )
        for kind, n in sorted(f.error_kinds.items()):
            lines.append(f"{phase} errors: {n} x {kind}")
    if "echo" in results and "flat" in results and results["echo"].per_second:
        ratio = results["flat"].per_second / results["echo"].per_second
        lines.append(
            f"flat placements per second / echo round trips per second: {ratio:.0%} "
            "(target at least 40%)"
        )
        if results["flat"].us_per_op:
            cpu_ratio = results["echo"].us_per_op / results["flat"].us_per_op
            lines.append(f"the same ratio in server CPU per operation: {cpu_ratio:.0%}")
    if "paced" in results:
        p = results["paced"]
        ok = p.turn_p99 < 100 and p.ack_p99 < 100 and p.errors == 0
        lines.append(
            f"paced target (p99 under 100 ms, no errors, {args.players} players): "
            + ("met" if ok else "missed")
        )
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.bench_server",
        description="Load benchmark of the game server over loopback (see the module docstring).",
    )
    p.add_argument("--players", type=int, default=2000, help="concurrent players (default 2000)")
    p.add_argument("--duration", type=float, default=60.0, help="paced window, seconds (60)")
    p.add_argument(
        "--flat-duration", type=float, default=20.0, help="flat and echo windows, seconds (20)"
    )
    p.add_argument("--warmup", type=float, default=5.0, help="seconds before timing (5)")
    p.add_argument(
        "--mode",
        choices=("paced", "flat", "both"),
        default="both",
        help="paced, flat (with the echo ceiling) or both (default)",
    )
    p.add_argument(
        "--think",
        type=float,
        default=0.85,
        help="paced think time, seconds (0.85: with ±25%% jitter and four players to wait "
        "for, a turn comes round about once a second)",
    )
    p.add_argument(
        "--stagger",
        type=float,
        default=17.0,
        help="paced: spread the rooms' first deals over this many seconds, as players "
        "arriving over time would (default 17, about one match; 0: every room starts "
        "within one think time, so matches end together); timing starts after it",
    )
    p.add_argument("--workers", type=int, default=2, help="load-generator processes (2)")
    p.add_argument("--repeat", type=int, default=1, help="runs per phase; medians are printed")
    p.add_argument(
        "--no-compression",
        dest="compression",
        action="store_false",
        help="do not offer permessage-deflate (the terminal client offers it)",
    )
    p.add_argument(
        "--protocol",
        type=int,
        choices=(1, 2),
        default=2,
        help="the protocol version the bots speak: 2 (default; a frame may hold several "
        "messages) or 1 (a server from before protocol 2 speaks only 1)",
    )
    p.add_argument("--seed", type=int, default=None, help="seed of the bots' choices")
    p.add_argument(
        "--server-command",
        metavar="CMD",
        help="run CMD instead of 'python -m client_cli serve', to measure a variant of the "
        "server: it gets --host, --port 0, --db and --grace and must announce its address "
        "as serve does",
    )
    p.add_argument(
        "--nodes",
        type=int,
        choices=(1, 2),
        default=1,
        help="1: one server process (default); 2: a cluster of two nodes on one Redis and "
        "one database, each room's players spread over both (see the module docstring)",
    )
    p.add_argument(
        "--together",
        action="store_true",
        help="--nodes 2: each room's players all on the node that owns it, none forwarded",
    )
    p.add_argument(
        "--follow-hints",
        action="store_true",
        help="--nodes 2: the players say follow_node and reconnect straight to the node a "
        "node_hint names (see the module docstring)",
    )
    p.add_argument(
        "--store",
        choices=("sqlite", "postgresql"),
        default="sqlite",
        help="sqlite: a file in a temporary directory (default); postgresql: a PostgreSQL "
        "cluster of its own (tests/services/postgres.py), transactions and rows written "
        "per placement counted",
    )
    p.add_argument("--echo-server", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.players < SEATS:
        p.error(f"--players must be at least {SEATS}")
    if not (1 <= args.workers <= 64) or not (1 <= args.repeat <= 20):
        p.error("--workers must be 1..64 and --repeat 1..20")
    if args.follow_hints and args.nodes == 1:
        p.error("--follow-hints is for --nodes 2")
    if args.together and args.follow_hints:
        p.error("--follow-hints is for players spread over the nodes, not --together")
    if not (0 < args.duration <= 3600 and 0 < args.flat_duration <= 3600):
        p.error("durations must be 0..3600 seconds")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.echo_server:
        run_echo_server()
        return 0
    phases = {"paced": ["paced"], "flat": ["echo", "flat"], "both": ["echo", "paced", "flat"]}
    seed = args.seed if args.seed is not None else random.randrange(1_000_000)
    results: dict[str, Figures] = {}
    with tempfile.TemporaryDirectory(prefix="cribsquares-bench-") as tmp:
        for phase in phases[args.mode]:
            runs = []
            for i in range(args.repeat):
                print(f"{phase} run {i + 1}/{args.repeat} ...", file=sys.stderr, flush=True)
                runs.append(run_phase(phase, args, Path(tmp), seed + i))
            results[phase] = median_figures(runs)
    print(table(results, args))
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        raise SystemExit(130) from None
