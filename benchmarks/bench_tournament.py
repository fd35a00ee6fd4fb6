"""A 256-player duplicate tournament of 5 deals played by server bots, timed.

Starts a server in a subprocess (its own database in a temporary directory),
signs in one host over the WebSocket, creates a duplicate tournament, enters
256 server-side ``greedy`` bots (the engine's cheapest sensible strategy: they
think in the server's two bot worker processes like any server bot), starts
it and waits for the final standings. Prints the wall time from the start to
the final table, the time per round, and the server's resident memory (VmRSS
of the server process, peak and at the end, and with its bot workers).

    python -m benchmarks.bench_tournament [--players 256] [--deals 5] [--strategy greedy]

The pause between rounds is set to 1 s (the server default is 10 s) so that
the figure is about the playing; ``--between-rounds-ms`` changes it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import websockets

SERVER = """
import sys
from server.shell.runtime import run
from server.config import ServerConfig
run(ServerConfig(port=int(sys.argv[1]), db_path=sys.argv[2], between_rounds_ms=int(sys.argv[3]),
                 finished_ttl_ms=3_600_000), announce=lambda line: print(line, flush=True))
"""


def rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def run_tournament(url: str, players: int, deals: int, strategy: str) -> dict[str, float]:
    async with websockets.connect(url, max_size=2**24) as ws:

        async def until(kind: str) -> dict[str, object]:
            while True:
                message = json.loads(await ws.recv())
                if message["type"] in (kind, "error"):
                    assert message["type"] == kind, message
                    return message

        await ws.send(json.dumps({"type": "hello", "protocol": 1, "name": "host"}))
        await until("welcome")
        await ws.send(
            json.dumps(
                {
                    "type": "create_tournament",
                    "name": "bench",
                    "rounds": deals,
                    "pace": "race",
                    "deal_clock_ms": 300_000,
                    "max_players": players,
                }
            )
        )
        t = (await until("tournament"))["tournament"]
        tid = t["id"]  # type: ignore[index]
        await ws.send(
            json.dumps(
                {
                    "type": "add_tournament_bot",
                    "tournament_id": tid,
                    "strategy": strategy,
                    "count": players,
                }
            )
        )
        await until("tournament")
        started = time.perf_counter()
        await ws.send(
            json.dumps({"type": "manage_tournament", "tournament_id": tid, "action": "start"})
        )
        rounds_at: dict[int, float] = {}
        while True:
            info = (await until("tournament"))["tournament"]
            for r in info["history"]:  # type: ignore[index]
                if r["status"] == "finished" and r["number"] not in rounds_at:
                    rounds_at[r["number"]] = time.perf_counter() - started
            if info["status"] in ("finished", "cancelled"):  # type: ignore[index]
                break
        wall = time.perf_counter() - started
        assert info["status"] == "finished", info["status"]  # type: ignore[index]
        assert len(info["standings"]) == players  # type: ignore[index, arg-type]
        return {"wall_s": wall, **{f"round_{k}_s": v for k, v in sorted(rounds_at.items())}}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=256)
    parser.add_argument("--deals", type=int, default=5)
    parser.add_argument("--strategy", default="greedy")
    parser.add_argument("--between-rounds-ms", type=int, default=1_000)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        db = os.path.join(tmp, "bench.db")
        server = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(port), db, str(args.between_rounds_ms)],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.stdout is not None
            server.stdout.readline()  # the announcement: it is listening
            peak = [0, 0]

            async def sample() -> None:
                while True:
                    main_rss = rss_kib(server.pid)
                    tree = main_rss + sum(rss_kib(c) for c in children(server.pid))
                    peak[0], peak[1] = max(peak[0], main_rss), max(peak[1], tree)
                    await asyncio.sleep(0.25)

            async def both() -> dict[str, float]:
                sampler = asyncio.create_task(sample())
                try:
                    return await run_tournament(
                        f"ws://127.0.0.1:{port}/ws", args.players, args.deals, args.strategy
                    )
                finally:
                    sampler.cancel()

            figures = asyncio.run(both())
            end_rss = rss_kib(server.pid)
            db_mib = os.path.getsize(db) / 2**20
        finally:
            server.terminate()
            server.wait(timeout=30)
    rounds = [v for k, v in figures.items() if k.startswith("round_")]
    per_round = [b - a for a, b in zip([0.0, *rounds], rounds, strict=False)]
    print(
        f"{args.players}-player duplicate tournament, {args.deals} deals, {args.strategy} bots,"
        f" {args.between_rounds_ms} ms between rounds"
    )
    print(f"wall time, start to final standings: {figures['wall_s']:.1f} s")
    print("round ends at (s): " + ", ".join(f"{v:.1f}" for v in rounds))
    print("per round incl. the pause (s): " + ", ".join(f"{v:.1f}" for v in per_round))
    print(
        f"server RSS: peak {peak[0] / 1024:.1f} MiB, at the end {end_rss / 1024:.1f} MiB;"
        f" with its bot workers, peak {peak[1] / 1024:.1f} MiB"
    )
    print(f"database: {db_mib:.1f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
