"""A real server on loopback and a small client over the ``websockets`` library."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
import os
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import websockets
from aiohttp import web

from protocol.fields import PROTOCOL_VERSION
from protocol.wire import frame_messages
from server.config import ServerConfig
from server.shell.app import create_app
from server.shell.keys import HUB
from server.shell.runtime import make_runner
from server.shell.session import Session

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Live:
    url: str  # ws://127.0.0.1:PORT/ws
    http: str  # http://127.0.0.1:PORT
    app: web.Application


@contextlib.asynccontextmanager
async def running_server(
    db: Path, *, daily_calendar: Callable[[int], int] | None = None, **overrides: Any
) -> AsyncIterator[Live]:
    config = replace(ServerConfig(port=0, db_path=str(db), tick_ms=20), **overrides)
    app = create_app(config, daily_calendar=daily_calendar)
    runner = make_runner(app, config)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield Live(f"ws://127.0.0.1:{port}/ws", f"http://127.0.0.1:{port}", app)
    finally:
        await runner.cleanup()


class ErrorRecords(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextlib.asynccontextmanager
async def unlimited_server_logging_no_error(db: Path) -> AsyncIterator[Live]:
    """A live server without a frame rate limit, for fuzzing; fails if it logged an error."""
    records = ErrorRecords()
    logging.getLogger().addHandler(records)
    try:
        # No hello timeout either: a fuzzed connection may say anything but hello for long.
        async with running_server(
            db, rate_per_second=1e6, rate_burst=1_000_000, hello_timeout_s=600
        ) as live:
            yield live
    finally:
        logging.getLogger().removeHandler(records)
    assert not records.records, [r.getMessage() for r in records.records]


class Client:
    """One connection; remembers everything it received.

    It reads messages: in protocol 2 (its default; ``protocol=1`` for the old
    framing) a frame may hold several, kept in order in ``held``; ``frames`` is
    every frame's text as it arrived."""

    def __init__(self, ws: websockets.ClientConnection, protocol: int = PROTOCOL_VERSION) -> None:
        self.ws = ws
        self.protocol = protocol
        self.log: list[dict[str, Any]] = []
        self.frames: list[str] = []
        self.held: collections.deque[dict[str, Any]] = collections.deque()
        self.token: str | None = None
        self.id: str | None = None

    @classmethod
    async def connect(cls, live: Live, protocol: int = PROTOCOL_VERSION) -> Client:
        return cls(await websockets.connect(live.url), protocol)

    async def close(self) -> None:
        await self.ws.close()

    async def send(self, **message: Any) -> None:
        await self.ws.send(json.dumps(message))

    async def send_raw(self, frame: str | bytes) -> None:
        await self.ws.send(frame)

    async def recv(self, timeout: float = 10.0) -> dict[str, Any]:
        if not self.held:
            frame = await asyncio.wait_for(self.ws.recv(), timeout)
            assert isinstance(frame, str), frame
            self.frames.append(frame)
            self.held.extend(frame_messages(json.loads(frame)))
        message: dict[str, Any] = self.held.popleft()
        self.log.append(message)
        return message

    async def until(self, *types: str, timeout: float = 10.0) -> dict[str, Any]:
        """Read until a message of one of ``types`` arrives; return it."""
        while True:
            message = await self.recv(timeout)
            if message["type"] in types:
                return message

    async def hello(self, name: str | None = None, **extra: Any) -> dict[str, Any]:
        await self.send(type="hello", protocol=self.protocol, name=name, **extra)
        welcome = await self.until("welcome", "error")
        if welcome["type"] == "welcome":
            self.id = welcome["player"]["id"]
            self.token = welcome["token"] or self.token
        return welcome

    async def error(self, code: str) -> dict[str, Any]:
        message = await self.until("error")
        assert message["code"] == code, message
        return message

    async def still_alive(self) -> None:
        await self.send(type="ping", ref="alive?")
        pong = await self.until("pong")
        assert pong["ref"] == "alive?"

    async def play_to_end(self, room_id: str, pick: int = 0) -> dict[str, Any]:
        """Place every card dealt on its ``pick``-th legal cell until the result."""
        while True:
            message = await self.until("card", "match_result", timeout=20)
            if message["type"] == "match_result":
                return message
            legal = message["legal"]
            cell = legal[min(pick, len(legal) - 1)]
            await self.send(type="place", room_id=room_id, turn=message["turn"], cell=cell)


async def read_until_refused(
    client: Client, tournament_id: str, most: int = 12
) -> tuple[int, dict[str, Any]]:
    """``get_tournament`` asked again and again (refs ``g0``, ``g1``, …), each answer to
    the asker with its ref, until the read budget refuses one: how many were answered,
    and the refusal (whose ref is the next one). Fails if ``most`` asks spend nothing."""
    for n in range(most):
        await client.send(type="get_tournament", tournament_id=tournament_id, ref=f"g{n}")
        reply = await client.until("tournament", "error")
        if reply["type"] == "error":
            assert reply["code"] == "rate_limited" and reply["ref"] == f"g{n}", reply
            return n, reply
        assert reply["ref"] == f"g{n}", reply
    raise AssertionError(f"{most} answers of a tournament and no budget spent")


async def connect_over(
    live: Live, *, source: str | None = None, rcvbuf: int | None = None, **options: Any
) -> Client:
    """A connection over a socket of our own: from the loopback address ``source`` (the
    remote address the server sees), with a receive buffer of ``rcvbuf`` bytes (a
    small one makes the server's send buffer fill soon); ``options`` go to websockets."""
    sock = socket.socket()
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    if source is not None:
        sock.bind((source, 0))
    sock.setblocking(False)
    host, port = live.url.split("/")[2].split(":")
    await asyncio.get_running_loop().sock_connect(sock, (host, int(port)))
    return Client(await websockets.connect(live.url, sock=sock, **options))


async def signed_in(
    live: Live,
    name: str,
    *,
    protocol: int = PROTOCOL_VERSION,
    kind: type[Client] = Client,
    **extra: Any,
) -> Client:
    """A connection of ``kind`` (a Client, or one that keeps more), signed in as ``name``."""
    client = await kind.connect(live, protocol)
    welcome = await client.hello(name, **extra)
    assert welcome["type"] == "welcome", welcome
    return client


async def solo_three_placed(live: Live, name: str) -> tuple[Client, str, dict[str, Any]]:
    """``name``'s solo room (lockstep, a minute a card), three cards placed: the client,
    the room's id and the fourth card, dealt and not placed."""
    client = await signed_in(live, name)
    await client.send(type="create_room", name="solo", seats=1, card_clock_ms=60_000)
    room_id = (await client.until("room_state"))["room"]["id"]
    await client.send(type="ready", room_id=room_id)
    for _ in range(3):
        card = await client.until("card")
        await client.send(type="place", room_id=room_id, turn=card["turn"], cell=card["legal"][0])
        await client.until("placed")
    return client, room_id, await client.until("card")


async def two_player_room(
    live: Live,
    *,
    bob_at: Live | None = None,
    protocols: tuple[int, int] = (PROTOCOL_VERSION, PROTOCOL_VERSION),
    **room: Any,
) -> tuple[Client, Client, str]:
    """alice creates a room, bob joins (through ``bob_at``, another node of a cluster,
    if given), both ready: the match has started. ``protocols``: what each one speaks."""
    alice = await signed_in(live, "alice", protocol=protocols[0])
    bob = await signed_in(bob_at or live, "bob", protocol=protocols[1])
    return alice, bob, await duel(alice, bob, **room)


async def duel(host: Client, guest: Client, **room: Any) -> str:
    """``host`` opens a room of two, ``guest`` joins, both ready: the match has started."""
    await host.send(type="create_room", name="duel", seats=2, contribution="a-share", **room)
    room_id: str = (await host.until("room_state"))["room"]["id"]
    await guest.send(type="join_room", room_id=room_id, contribution="b-share")
    await guest.until("room_state")
    await host.send(type="ready", room_id=room_id)
    await guest.send(type="ready", room_id=room_id)
    for c in (host, guest):
        await c.until("match_started")
    return room_id


async def duel_with_a_non_reader(live: Live, **room: Any) -> tuple[Client, Client, str]:
    """alice and bob in a started duel; bob, over a small receive buffer, never reads
    (so the server's send buffer for him fills soon: see :func:`bury`)."""
    alice = await signed_in(live, "alice")
    bob = await connect_over(live, rcvbuf=4_096, max_queue=1)
    await bob.hello("bob")
    await alice.send(type="create_room", name="duel", seats=2, **room)
    room_id = (await alice.until("room_state"))["room"]["id"]
    await bob.send(type="join_room", room_id=room_id)
    await bob.until("room_state")
    for c in (alice, bob):
        await c.send(type="ready", room_id=room_id)
    await alice.until("match_started")
    return alice, bob, room_id


def session_of(live: Live, client: Client) -> Session:
    return next(s for s in live.app[HUB].sessions if s.player and s.player.id == client.id)


async def bury(live: Live, client: Client, room_id: str) -> Session:
    """Ask for snapshot after snapshot that ``client`` never reads, until the server
    gives up on it as too slow (bounded); its session."""
    session = session_of(live, client)
    for _ in range(20_000):
        if session.closing:
            break
        await asyncio.wait_for(client.send(type="resync", room_id=room_id), 5)
    for _ in range(500):  # the server answers them one by one
        if session.closing:
            break
        await asyncio.sleep(0.02)
    assert session.closing
    return session


@contextlib.contextmanager
def server_process(
    db: Path | str, port: int = 0, extra: tuple[str, ...] = (), stderr: Any = subprocess.PIPE
) -> Iterator[tuple[subprocess.Popen[str], Live]]:
    """`cribsquares serve` as a real process on ``port`` (0: a free one; a given port
    serves a restart on the same address) storing in ``db`` (a SQLite file, or a
    postgresql:// URL: ``--store``), with the options ``extra`` (its log to
    ``stderr``); killed if still running at the end."""
    option = "--store" if str(db).startswith("postgresql://") else "--db"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "client_cli",
            "serve",
            "--port",
            str(port),
            option,
            str(db),
            *extra,
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        start_new_session=True,  # its bot workers join its process group
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert "ws://" in line, line + (process.stderr.read() if process.stderr else "")
        url = line.split("WebSocket ")[1].split(")")[0]
        http = url.replace("ws://", "http://").removesuffix("/ws")
        yield process, Live(url, http, None)  # type: ignore[arg-type]
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        # Its bot workers end with it (server.bots.die_with_parent; test_orphans.py
        # checks that): this only makes sure nothing of it outlives the test.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
