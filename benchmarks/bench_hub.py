"""In-process cost of one placement through the whole server but its sockets.

    python -m benchmarks.bench_hub [--players 200] [--matches 2] [--mode paced|flat]
    python -m benchmarks.bench_hub --callgrind [--players 200] [--mode paced|flat]

The server's own objects, as ``serve`` builds them: the :class:`~server.shell.hub.Hub`
with its :class:`~server.lobby.Lobby`, rooms and :class:`~server.shell.delivery.Delivery`,
SQLite storage (:class:`~server.storage.Storage`, a temporary file) and the
garbage collector tuned as ``serve`` tunes it; only the WebSockets are fakes:
each player's session writes its frames to a transport that keeps the bytes,
which the player then reads (frame headers split, ``card`` messages parsed; in
protocol 2, the default, a frame holding several messages is parsed whole,
``--protocol 1`` for one message a frame). Every
frame goes in as text through :meth:`Hub.receive`, the way the WebSocket handler
hands it over: size check, flood bucket, parse, lobby, room, storage commit,
delivery, one write per session per turn of the loop.

The players do what ``benchmarks.bench_server``'s bots do: four to a lockstep
room, ready, sixteen cards each on a random legal cell, then all leave and the
next in turn opens a new room that the others join. Time is virtual (the
shell's clock is patched): ``paced``, each card is placed ``--think`` seconds
(±25 %) after it arrives; ``flat``, at the next step. The clock ticks every
50 ms (``tick_ms``) as the server's does; the event loop runs between steps, so
the storage writer gathers what a step submitted into one commit.

Printed: placements, the messages, frames, writes and bytes the server wrote
per placement, the players' own share of the CPU (reading their frames,
parsing, choosing a cell; the rest is the server's),
and the CPU time per placement (the process's, storage thread included).
``--callgrind`` runs this module twice under ``valgrind --tool=callgrind``
(``--matches`` 1 and 2) and prints the instructions per placement of the
difference: setup, imports and sign-in cancel out, and the machine's other
load does not move the count. The players' own work (splitting frames, parsing
each ``card``) is in both counts.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SEATS = 4
STEP_MS = 20  # placements due within one step are sent together (the writer gathers them)
PER_ADDRESS = 16  # players per remote address, as the load benchmark connects them


class Clock:
    def __init__(self) -> None:
        self.ms = 1_700_000_000_000

    def now_ms(self) -> int:
        return self.ms


class FakeSocket:
    """What a Session needs of aiohttp's WebSocketResponse."""

    closed = False
    compress = 0

    async def close(self, **_: Any) -> None:
        self.closed = True


@dataclass(eq=False)
class Player:
    index: int
    name: str
    inbox: bytearray = field(default_factory=bytearray)
    unread: set[Player] = field(default_factory=set)  # the driver's: who has frames
    session: Any = None
    id: str = ""
    frames: int = 0
    messages: int = 0
    writes: int = 0
    bytes: int = 0

    # the transport the server writes to
    def write(self, data: bytes) -> None:
        self.inbox += data
        self.writes += 1
        self.unread.add(self)

    def is_closing(self) -> bool:
        return False

    def get_write_buffer_size(self) -> int:
        return 0

    def read(self) -> list[str | dict[str, Any]]:
        """The messages written since the last read: a frame's text, or the parsed
        messages of a frame that holds several (protocol 2)."""
        data, self.inbox = bytes(self.inbox), bytearray()
        texts: list[str | dict[str, Any]] = []
        frames = 0
        i, n = 0, len(data)
        while i < n:
            length = data[i + 1]
            i += 2
            if length == 126:
                length = int.from_bytes(data[i : i + 2], "big")
                i += 2
            elif length == 127:
                length = int.from_bytes(data[i : i + 8], "big")
                i += 8
            text = data[i : i + length].decode()
            if text.startswith("["):
                texts.extend(json.loads(text))
            else:
                texts.append(text)
            frames += 1
            i += length
        self.frames += frames
        self.messages += len(texts)
        self.bytes += n
        return texts


def kind_of(message: str | dict[str, Any]) -> str:
    if not isinstance(message, str):
        return str(message.get("type", "?"))
    match = re.match(r'\{"type":"([a-z_]+)"', message)
    return match.group(1) if match else "?"


def parsed(message: str | dict[str, Any]) -> dict[str, Any]:
    return json.loads(message) if isinstance(message, str) else message  # type: ignore[no-any-return]


class Driver:
    def __init__(self, args: argparse.Namespace, db: Path) -> None:
        self.args = args
        self.db = db
        self.rng = random.Random(args.seed)
        self.clock = Clock()
        self.placements = 0
        self.results = 0
        # (due ms, order, player, frame) of the placements waiting to be sent
        self.due: list[tuple[int, int, Player, str]] = []
        self.order = 0

    async def setup(self) -> None:
        from server.config import LobbyConfig, ServerConfig
        from server.limits import TokenBucket
        from server.lobby import Lobby
        from server.shell import clock
        from server.shell.hub import Hub
        from server.shell.session import Session
        from server.storage import Storage

        clock.now_ms = self.clock.now_ms  # type: ignore[assignment]
        self.config = ServerConfig(db_path=str(self.db))
        self.storage = await Storage.open(self.db, opened_ms=0)
        self.lobby = Lobby(LobbyConfig(), think_elsewhere=True)
        self.hub = Hub(self.config, self.storage, self.lobby)
        self.unread: set[Player] = set()
        self.players = [
            Player(i, f"b{i:05d}", unread=self.unread) for i in range(self.args.players)
        ]
        for p in self.players:
            p.session = Session(
                FakeSocket(),  # type: ignore[arg-type]
                TokenBucket(self.config.rate_per_second, self.config.rate_burst, self.clock.ms),
                self.config.max_unsent_bytes,
                transport=p,
                on_pending=self.hub.schedule_flush,
                address=f"127.10.{p.index // PER_ADDRESS}.2",
            )
            self.hub.sessions.add(p.session)
        await asyncio.gather(*(self.hello(p) for p in self.players))
        self.rooms = [self.players[i : i + SEATS] for i in range(0, len(self.players), SEATS)]
        for bots in self.rooms:
            for bot in bots:
                bot.room = bots  # type: ignore[attr-defined]
            await self.seat(bots)

    async def send(self, p: Player, **message: Any) -> None:
        await self.hub.receive(p.session, json.dumps(message, separators=(",", ":")))

    async def settle(self) -> None:
        """Let the loop run the flushes (call_soon) and the writer's commits."""
        for _ in range(3):
            await asyncio.sleep(0)

    async def hello(self, p: Player) -> None:
        await self.send(p, type="hello", protocol=self.args.protocol, name=p.name, bot=True,
                        client="bench")  # fmt: skip
        await self.settle()
        for text in p.read():
            if kind_of(text) == "welcome":
                p.id = parsed(text)["player"]["id"]

    async def seat(self, bots: list[Player]) -> None:
        creator = bots[0]
        await self.send(creator, type="create_room", name="bench", seats=SEATS,
                        card_clock_ms=30_000)  # fmt: skip
        await self.settle()
        room_id = ""
        for text in creator.read():
            if kind_of(text) == "room_state":
                room_id = parsed(text)["room"]["id"]
        for bot in bots[1:]:
            await self.send(bot, type="join_room", room_id=room_id)
        await self.settle()
        for bot in bots:
            bot.read()
        for bot in bots:
            await self.send(bot, type="ready", room_id=room_id)
        for bot in bots:
            bot.room_id = room_id  # type: ignore[attr-defined]
            bot.matches = 0  # type: ignore[attr-defined]

    def read_all(self) -> list[list[Player]]:
        """Every player reads its frames; returns the rooms whose match is over for all."""
        over: list[list[Player]] = []
        think = self.args.think if self.args.mode == "paced" else 0.0
        touched = {id(p.room) for p in self.unread}  # type: ignore[attr-defined]
        self.unread.clear()
        for bots in self.rooms:
            if id(bots) not in touched:
                continue
            done = 0
            for p in bots:
                for text in p.read():
                    kind = kind_of(text)
                    if kind == "card":
                        card = parsed(text)
                        delay = int(think * 1000 * self.rng.uniform(0.75, 1.25))
                        frame = json.dumps(
                            {"type": "place", "room_id": card["room_id"], "turn": card["turn"],
                             "cell": self.rng.choice(card["legal"])},
                            separators=(",", ":"),
                        )  # fmt: skip
                        self.order += 1
                        self.due.append((self.clock.ms + max(delay, STEP_MS), self.order, p, frame))
                    elif kind == "placed":
                        self.placements += 1
                    elif kind == "match_result":
                        p.matches += 1  # type: ignore[attr-defined]
                    elif kind == "error":
                        raise SystemExit(f"error frame: {text}")
            if all(p.matches >= bots[0].matches for p in bots):  # type: ignore[attr-defined]
                done = bots[0].matches  # type: ignore[attr-defined]
            if done and getattr(bots[0], "cycled", 0) < done:
                bots[0].cycled = done  # type: ignore[attr-defined]
                over.append(bots)
        return over

    async def cycle(self, bots: list[Player]) -> None:
        """A match is over: everyone leaves, the next in turn opens a room, the rest join."""
        room_id = bots[0].room_id  # type: ignore[attr-defined]
        for bot in bots:
            await self.send(bot, type="leave_room", room_id=room_id)
        await self.settle()
        matches = bots[0].matches  # type: ignore[attr-defined]
        cycled = bots[0].cycled  # type: ignore[attr-defined]
        i = self.rooms.index(bots)
        bots = bots[1:] + bots[:1]
        self.rooms[i] = bots
        for bot in bots:
            bot.room = bots  # type: ignore[attr-defined]
        for bot in bots:
            bot.read()
        await self.seat(bots)
        for bot in bots:
            bot.matches = matches  # type: ignore[attr-defined]
            bot.cycled = cycled  # type: ignore[attr-defined]

    async def run(self) -> dict[str, Any]:
        """Play until every room has finished ``--matches`` matches."""
        started = time.process_time()
        counted = ("frames", "messages", "writes", "bytes")
        before = {k: sum(getattr(p, k) for p in self.players) for k in counted}
        self.placements = 0
        self.reading = 0.0  # the players' own CPU: reading and parsing frames, choosing
        target = self.args.matches
        last_tick = self.clock.ms
        while True:
            at = time.process_time()
            over = self.read_all()
            self.reading += time.process_time() - at
            for bots in over:
                if bots[0].matches < target:  # type: ignore[attr-defined]
                    await self.cycle(bots)
            if all(bots[0].matches >= target for bots in self.rooms):  # type: ignore[attr-defined]
                break
            # On to the next step with something to do: a placement due, or a tick.
            tick_at = last_tick + self.config.tick_ms
            first = min(self.due)[0] if self.due else tick_at
            self.clock.ms = min(tick_at, max(first, self.clock.ms) + STEP_MS - 1)
            now = self.clock.ms
            ready = [d for d in self.due if d[0] <= now]
            if ready:
                self.due = [d for d in self.due if d[0] > now]
                ready.sort(key=lambda d: (d[0], d[1]))
                receive = self.hub.receive
                await asyncio.gather(*(receive(p.session, frame) for _, _, p, frame in ready))
            if now >= tick_at:
                last_tick = now
                await self.hub.apply(lambda: self.lobby.tick(self.clock.ms))
            await self.settle()
        await self.settle()
        self.read_all()
        spent = time.process_time() - started
        report: dict[str, Any] = {
            "placements": self.placements,
            "cpu_s": spent,
            "players_cpu_s": self.reading,
        }
        for k in counted:
            report[k] = sum(getattr(p, k) for p in self.players) - before[k]
        return report


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    from server.shell.runtime import GC_THRESHOLDS

    with tempfile.TemporaryDirectory(prefix="cribsquares-bench-hub-") as tmp:
        driver = Driver(args, Path(tmp) / "bench.db")
        await driver.setup()
        gc.freeze()
        gc.set_threshold(*GC_THRESHOLDS)
        report = await driver.run()
        await driver.storage.close()
    return report


def run_here(args: argparse.Namespace) -> dict[str, Any]:
    from server.shell.runtime import event_loop_factory

    with asyncio.Runner(loop_factory=event_loop_factory()) as runner:
        return runner.run(_main(args))


def callgrind(args: argparse.Namespace) -> int:
    """Two runs under callgrind at once (one match a room, then two): the difference."""
    with tempfile.TemporaryDirectory(prefix="cribsquares-callgrind-") as tmp:
        runs = []
        for matches in (1, 2):
            command = [
                "valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/out.{matches}",
                sys.executable, "-m", "benchmarks.bench_hub", "--json",
                "--players", str(args.players), "--matches", str(matches),
                "--mode", args.mode, "--seed", str(args.seed), "--think", str(args.think),
                "--protocol", str(args.protocol),
            ]  # fmt: skip
            env = {**os.environ, "PYTHONHASHSEED": "0"}
            pipe = subprocess.PIPE
            runs.append(subprocess.Popen(command, stdout=pipe, stderr=pipe, text=True, env=env))
        counts: list[tuple[int, int]] = []
        for matches, proc in zip((1, 2), runs, strict=True):
            out, err = proc.communicate()
            found = re.search(r"Collected : (\d+)", err)
            if proc.returncode != 0 or found is None:
                sys.stderr.write(err[-3000:])
                return 1
            report = json.loads(out.strip().splitlines()[-1])
            counts.append((int(found.group(1)), report["placements"]))
            print(f"  {matches} match(es) a room: {report['placements']} placements, "
                  f"{int(found.group(1)):,} instructions", file=sys.stderr)  # fmt: skip
    (ir1, n1), (ir2, n2) = counts
    print(
        f"{args.mode}, {args.players} players, protocol {args.protocol}:"
        f" {(ir2 - ir1) / (n2 - n1) / 1000:,.0f} k instructions per placement (callgrind,"
        f" the {n2 - n1} placements of a second match in every room)"
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_hub", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    p.add_argument("--players", type=int, default=200, help="players, four to a room (200)")
    p.add_argument("--matches", type=int, default=2, help="matches each room plays (2)")
    p.add_argument("--mode", choices=("paced", "flat"), default="paced")
    p.add_argument("--think", type=float, default=0.85, help="paced think time, s (0.85)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--protocol", type=int, choices=(1, 2), default=2,
                   help="what the players' hello says: 2 (frames batched) or 1")  # fmt: skip
    p.add_argument("--repeat", type=int, default=1, help="runs; medians printed (1)")
    p.add_argument("--callgrind", action="store_true", help="instructions per placement")
    p.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.players < SEATS or args.players % SEATS or not 1 <= args.matches <= 100:
        p.error(f"--players: a multiple of {SEATS}; --matches 1..100")
    if args.callgrind:
        return callgrind(args)
    runs = [run_here(args) for _ in range(args.repeat)]
    if args.json:
        print(json.dumps(runs[-1]))
        return 0
    runs.sort(key=lambda r: r["cpu_s"] / r["placements"])
    r = runs[len(runs) // 2]
    n = r["placements"]
    print(
        f"{args.mode}, {args.players} players, protocol {args.protocol}, {args.matches} matches"
        f" a room: {n} placements, {r['cpu_s'] / n * 1e6:.1f} µs CPU per placement (median of"
        f" {len(runs)}; the players' own reading {r['players_cpu_s'] / n * 1e6:.1f}); per"
        f" placement {r['messages'] / n:.2f} messages in {r['frames'] / n:.2f}"
        f" frames, {r['writes'] / n:.2f} writes, {r['bytes'] / n:.0f} bytes"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
