"""Lighthouse's mobile performance and accessibility scores of the web client, on
the lobby, a deal being played and a deal's results.

    (cd benchmarks/lighthouse && npm install --no-package-lock)   # Lighthouse 12.2.3, once
    python -m benchmarks.bench_lighthouse [--runs 3] [--chromium /usr/bin/chromium]

It starts the real server on loopback (a temporary database, a grace period of
an hour so that a seat left for a moment is not played for), and sets up three
players over the protocol: one only signed in (the lobby); one seated in a
lockstep deal against a bot with a 10-minute card clock, five cards placed (a
deal in progress: the page resumes it from the server's room_state); one who
played a one-seat room to its end (its results, still held by the room). It
starts Chromium with a debugging port and a profile of its own; for each
state it puts that player's token in the page's localStorage and runs
Lighthouse (``--port``, ``--disable-storage-reset``: the page signs in with the
token and the server sends the room) with its default mobile settings
(emulated phone, simulated slow 4G and CPU throttling), ``--runs`` times, and
prints each category's median score. Everything it started is stopped at the
end. Targets (issue 28): performance at least 95 and accessibility 100 on each.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import websockets

from benchmarks.bench_server import HOST, ROOT, Child

LIGHTHOUSE = ROOT / "benchmarks" / "lighthouse" / "node_modules" / "lighthouse" / "cli" / "index.js"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync"]  # fmt: skip
TARGETS = {"performance": 95, "accessibility": 100}


class Player:
    """A protocol client: signs in, sends, reads until a message of a kind comes."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.token = ""

    @classmethod
    async def sign_in(cls, url: str, name: str) -> Player:
        player = cls(await websockets.connect(url))
        await player.send(type="hello", protocol=1, name=name)
        player.token = (await player.until("welcome"))["token"]
        return player

    async def send(self, **message: Any) -> None:
        await self.ws.send(json.dumps(message))

    async def until(self, kind: str) -> dict[str, Any]:
        while True:
            message: dict[str, Any] = json.loads(await asyncio.wait_for(self.ws.recv(), 20))
            if message["type"] == "error":
                raise RuntimeError(message)
            if message["type"] == kind:
                return message

    async def place(self, room_id: str, cards: int) -> None:
        for _ in range(cards):
            card = await self.until("card")
            await self.send(type="place", room_id=room_id, turn=card["turn"], cell=card["legal"][0])
            await self.until("placed")


async def set_up(url: str) -> dict[str, tuple[str, str]]:
    """The three states: name -> (token, address fragment)."""
    lobby = await Player.sign_in(url, "lobby")
    deal = await Player.sign_in(url, "dealer")
    await deal.send(type="create_room", name="A deal", seats=2, card_clock_ms=600_000,
                    visibility="private", contribution="d")  # fmt: skip
    deal_room = (await deal.until("room_state"))["room"]["id"]
    await deal.send(type="add_bot", room_id=deal_room, strategy="level-3")
    await deal.until("room")
    await deal.send(type="start", room_id=deal_room)
    await deal.place(deal_room, 5)
    done = await Player.sign_in(url, "finisher")
    await done.send(type="create_room", name="Solo", seats=1, contribution="f")
    done_room = (await done.until("room_state"))["room"]["id"]
    await done.send(type="start", room_id=done_room)
    await done.place(done_room, 16)
    await done.until("match_result")
    for p in (lobby, deal, done):
        await p.ws.close()
    return {
        "lobby": (lobby.token, "#/"),
        "deal in progress": (deal.token, f"#/room/{deal_room}"),
        "results": (done.token, f"#/room/{done_room}"),
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def chromium(path: str, port: int) -> Iterator[None]:
    with tempfile.TemporaryDirectory(prefix="bench-lh-profile-") as profile:
        proc = subprocess.Popen(
            [
                path,
                *CHROMIUM_FLAGS,
                f"--remote-debugging-port={port}",
                f"--user-data-dir={profile}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 20
            while True:
                with contextlib.suppress(OSError):
                    urllib.request.urlopen(f"http://{HOST}:{port}/json/version", timeout=2).read()
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError("Chromium did not open its debugging port")
                time.sleep(0.2)
            yield
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


async def store_token(port: int, origin: str, token: str) -> None:
    """Sign the profile in as ``token`` (the page keeps it in localStorage)."""
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.connect_over_cdp(f"http://{HOST}:{port}")
        page = await browser.contexts[0].new_page()
        await page.goto(origin + "/")
        await page.evaluate("(t) => localStorage.setItem('cribsquares.token', t)", token)
        # A first visit: nothing of the page in the cache (storage is kept, for the token).
        cdp = await page.context.new_cdp_session(page)
        await cdp.send("Network.clearBrowserCache")
        await page.close()
        # Disconnecting leaves Chromium (started by us) running.
        await browser.close()


def lighthouse(url: str, port: int) -> dict[str, float]:
    out = subprocess.run(
        [
            "node",
            str(LIGHTHOUSE),
            url,
            f"--port={port}",
            "--disable-storage-reset",
            "--only-categories=performance,accessibility",
            "--output=json",
            "--quiet",
            "--max-wait-for-load=30000",
        ],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    if out.returncode != 0:
        raise RuntimeError(f"lighthouse failed: {out.stderr[-2000:]}")
    report = json.loads(out.stdout)
    scores = {k: round(100 * (v["score"] or 0)) for k, v in report["categories"].items()}
    audits = report["audits"]
    for key in ("first-contentful-paint", "largest-contentful-paint", "total-blocking-time",
                "cumulative-layout-shift", "speed-index"):  # fmt: skip
        scores[key] = audits[key]["numericValue"]
    failing = [
        a
        for a, v in audits.items()
        if v.get("score") == 0 and v.get("scoreDisplayMode") == "binary"
    ]
    scores["failing"] = failing  # type: ignore[assignment]
    return scores


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="Lighthouse runs a state (median)")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args(argv)
    if not LIGHTHOUSE.exists() or shutil.which("node") is None:
        print("no Lighthouse: (cd benchmarks/lighthouse && npm install --no-package-lock)")
        return 2
    with tempfile.TemporaryDirectory(prefix="bench-lh-") as tmp:
        argv_ = [sys.executable, "-m", "client_cli", "serve", "--host", HOST, "--port", "0",
                 "--db", str(Path(tmp) / "lh.db"), "--grace", "3600"]  # fmt: skip
        server = Child(argv_, r"http://[\d.]+:(\d+)")
        try:
            origin = f"http://{HOST}:{server.port}"
            states = asyncio.run(set_up(f"ws://{HOST}:{server.port}/ws"))
            port = free_port()
            with chromium(args.chromium, port):
                rows = []
                for state, (token, fragment) in states.items():
                    asyncio.run(store_token(port, origin, token))
                    runs = [lighthouse(f"{origin}/{fragment}", port) for _ in range(args.runs)]
                    rows.append((state, runs))
        finally:
            server.stop()
    print(f"Lighthouse 12.2.3, mobile (its defaults), median of {args.runs} runs a state")
    print(f"{'state':18} {'performance':>11} {'accessibility':>13} {'FCP ms':>7} {'LCP ms':>7} "
          f"{'TBT ms':>7} {'CLS':>6}")  # fmt: skip
    met = True
    for state, runs in rows:
        med = {k: statistics.median(r[k] for r in runs) for k in runs[0] if k != "failing"}
        met &= all(med[k] >= v for k, v in TARGETS.items())
        fcp, lcp = med["first-contentful-paint"], med["largest-contentful-paint"]
        tbt, cls = med["total-blocking-time"], med["cumulative-layout-shift"]
        scores = f"{med['performance']:>11.0f} {med['accessibility']:>13.0f}"
        print(f"{state:18} {scores} {fcp:>7.0f} {lcp:>7.0f} {tbt:>7.0f} {cls:>6.3f}")
        failing = sorted({a for r in runs for a in r["failing"]})  # type: ignore[union-attr]
        if failing:
            print(f"  failing audits: {', '.join(failing)}")
    print("targets (performance >= 95, accessibility 100):", "met" if met else "NOT met")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
