"""The aiohttp shell: WebSocket ``/ws``, ``/healthz`` and the read-only history API.

The handler only parses, calls and sends. Each frame is size-checked,
rate-limited and parsed once (:func:`protocol.parse_client`); the typed message
goes to the lobby (synchronous, no I/O); the events it produced go to storage,
whose commit is awaited; then the addressed messages are queued to the
recipients' connections. Every refusal becomes one ``error`` reply and the
connection goes on. A background task ticks the lobby's clocks.

Nothing is sent before what it tells is stored. A write the database lost
(:class:`server.storage.WriteFailed`) sends nothing of its step: the requester
gets ``storage_failed``, and the rooms it concerned are taken out of play at
once and rebuilt from the database, as after a restart (docs/operations.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import hashlib
import logging
import secrets
import signal
import time
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast
from urllib.parse import urlsplit

from aiohttp import WSCloseCode, WSMsgType, web
from aiohttp.http import HttpProcessingError
from pydantic import BaseModel, ValidationError

from protocol.messages import (
    PROTOCOL_VERSION,
    ClientMessage,
    CreateRoom,
    CreateTournament,
    ErrorMessage,
    GetLeaderboard,
    Hello,
    JoinRoom,
    JoinTournament,
    LeaveRoom,
    LeaveTournament,
    ListRooms,
    Pace,
    Ping,
    PlayerInfo,
    Pong,
    ProtocolError,
    Welcome,
    dump_server,
    echoable_ref,
    parse_client,
    readable,
)
from protocol.names import reserved
from server import aiohttp_adapters, errors, identity
from server.aiohttp_adapters import FrameTransport
from server.analysis import ANALYST, Analyst
from server.analysis import routes as analysis_routes
from server.bots import BotPool, bot_factory, bot_levels
from server.config import LobbyConfig, ServerConfig
from server.config import check as check_config
from server.events import Event
from server.limits import Quotas, TokenBucket, quota_key
from server.lobby import Lobby
from server.recovery import Resumable
from server.room import BotTurn, Outbound, Room
from server.storage import NameInUse, Storage, StoredPlayer, WriteFailed
from server.tournaments.http import routes as tournament_routes
from server.web import routes as web_routes

log = logging.getLogger(__name__)

SERVER_NAME = "cribsquares/0.1"
# A room lost again this soon after it was rebuilt from the database ends instead.
REBUILD_AGAIN_MS = 10_000


CONFIG = web.AppKey("config", ServerConfig)
STORAGE = web.AppKey("storage", Storage)


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(eq=False)
class Session:
    """One WebSocket connection: who it is, its flood bucket and its outgoing frames.

    Messages are not written one by one: :meth:`send` collects them and the hub
    flushes every session once per turn of the event loop, all the frames of a
    session in one write. Without compression the frames are encoded here and
    handed to the transport directly (one system call for, say, a ``placed``
    and the ``progress`` after it); with compression negotiated they go through
    aiohttp, which keeps the deflate stream, from a writer task.
    """

    ws: web.WebSocketResponse
    bucket: TokenBucket
    limit: int  # bytes the transport may hold unsent before the client counts as too slow
    transport: FrameTransport | None = None  # None: send through aiohttp (deflate)
    player: PlayerInfo | None = None
    pending: list[str] = field(default_factory=list)
    on_pending: Callable[[Session], None] | None = None
    closing: bool = False
    address: str = "?"  # the quota key of its remote address (server.limits.quota_key)
    socket: asyncio.BaseTransport | None = None  # the connection, to cut a slow one off
    on_too_slow: Callable[[Session], None] | None = None  # the hub drops it from its rooms
    gone: bool = False  # the hub has let go of it (closed, or dropped as too slow)
    _queue: asyncio.Queue[str] | None = None
    _writer: asyncio.Task[None] | None = None

    def send(self, text: str) -> None:
        if self.closing:
            return
        if not self.pending and self.on_pending is not None:
            self.on_pending(self)
        self.pending.append(text)

    def send_message(self, message: BaseModel) -> None:
        self.send(dump_server(message))

    def send_error(self, code: str, reason: str, *, room_id: Any = None, ref: Any = None) -> None:
        # Whatever a refused frame held, its error can be written: a ref or room
        # id that could not be sent back is left out, and a reason quoting the
        # frame has its lone surrogates escaped.
        self.send_message(
            ErrorMessage(
                code=code,
                reason=readable(reason),
                room_id=echoable_ref(room_id),
                ref=echoable_ref(ref),
            )
        )

    def flush(self) -> None:
        """Write every pending message; close a connection that does not read its messages."""
        texts, self.pending = self.pending, []
        if not texts or self.closing or self.ws.closed:
            return
        transport = self.transport
        if transport is None:
            if self._queue is None:
                self._queue = asyncio.Queue()
                self._writer = asyncio.create_task(self._write_through_aiohttp())
            for text in texts:
                self._queue.put_nowait(text)
            if self._queue.qsize() * 256 > self.limit:
                self._too_slow()
            return
        if transport.is_closing():
            return
        if transport.get_write_buffer_size() > self.limit:
            self._too_slow()
            return
        transport.write(b"".join(map(aiohttp_adapters.text_frame, texts)))

    def _too_slow(self) -> None:
        """More than ``limit`` bytes unread: the connection is dropped now. Its rooms see
        it go at once (``on_too_slow``: the hub lets go of it, so its grace period
        starts, as for any dropped connection); the close frame goes behind its backlog,
        and the socket is cut off if the close is not done within SLOW_CLOSE_S."""
        log.warning("closing a connection that does not read its messages")
        self.closing = True
        self.pending.clear()
        if self.on_too_slow is not None:
            self.on_too_slow(self)
        task = asyncio.create_task(self._close_slow())
        _BACKGROUND.add(task)
        task.add_done_callback(_closed_slow_client)

    async def _close_slow(self) -> None:
        try:
            async with asyncio.timeout(SLOW_CLOSE_S):
                await self.ws.close(code=WSCloseCode.POLICY_VIOLATION, message=b"too slow")
        finally:
            socket = cast(asyncio.Transport | None, self.socket)
            if socket is not None and not socket.is_closing():
                socket.abort()

    async def _write_through_aiohttp(self) -> None:
        assert self._queue is not None
        while True:
            text = await self._queue.get()
            try:
                await self.ws.send_str(text)
            except (ConnectionError, RuntimeError):
                return

    async def stop(self) -> None:
        if self._writer is not None:
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer


_BACKGROUND: set[asyncio.Task[Any]] = set()
SLOW_CLOSE_S = 2.0  # a too-slow connection's close frame gets this long before the cut


def _closed_slow_client(task: asyncio.Task[Any]) -> None:
    _BACKGROUND.discard(task)
    if not task.cancelled() and task.exception() is not None:
        log.info("closing a slow connection: %s", task.exception() or "timed out")


def _background(coroutine: Any) -> None:
    task = asyncio.create_task(coroutine)
    _BACKGROUND.add(task)
    task.add_done_callback(_BACKGROUND.discard)


# What each command spends of the quotas (docs/operations.md, Limits); hello's
# are spent in Hub._hello, HTTP requests' in http_quota.
QUOTA_KINDS: dict[type[BaseModel], str] = {
    CreateRoom: "room",
    CreateTournament: "tournament",
    JoinRoom: "join",
    LeaveRoom: "join",
    JoinTournament: "join",
    LeaveTournament: "join",
}


def make_quotas(config: ServerConfig) -> Quotas:
    return Quotas(
        {
            "signin": ("sign-ins", config.signins_per_address, config.signins_per_account),
            "guest": ("new guests", config.new_guests_per_address, None),
            "register": ("new players", config.new_players_per_address, None),
            "room": ("rooms created", config.rooms_per_address, config.rooms_per_account),
            "tournament": (
                "tournaments created",
                config.tournaments_per_address,
                config.tournaments_per_account,
            ),
            "join": ("joins and leaves", config.joins_per_address, config.joins_per_account),
            "http": ("HTTP requests", config.http_per_address, None),
        },
        config.quota_keys,
    )


class Hub:
    """Connections by player, and the one path from a command to the wire."""

    def __init__(
        self, config: ServerConfig, storage: Storage, lobby: Lobby, bots: BotPool | None = None
    ) -> None:
        self.config = config
        self.storage = storage
        self.lobby = lobby
        self.bots = bots or BotPool()
        self._thinking: set[asyncio.Task[None]] = set()
        self.sessions: set[Session] = set()
        self.by_player: dict[str, set[Session]] = {}
        self.by_address: Counter[str] = Counter()  # open WebSockets per remote address
        # token hash -> player, the most recently signed in last (bounded: LRU)
        self._players: OrderedDict[str, StoredPlayer] = OrderedDict()
        self._unflushed: list[Session] = []
        self._rebuilding: set[asyncio.Task[None]] = set()
        self._rebuilt_ms: dict[str, int] = {}  # room id -> when it was last rebuilt
        storage.on_lost = self._lost
        self.quotas = make_quotas(config)

    def _cached_player(self, digest: str) -> StoredPlayer | None:
        stored = self._players.get(digest)
        if stored is not None:
            self._players.move_to_end(digest)
        return stored

    def _cache_player(self, digest: str, stored: StoredPlayer) -> None:
        self._players[digest] = stored
        self._players.move_to_end(digest)
        while len(self._players) > self.config.player_cache_size:
            self._players.popitem(last=False)

    def _spend(self, kind: str, address: str | None, account: str | None) -> None:
        refused = self.quotas.take(kind, address, account, now_ms())
        if refused is not None:
            raise errors.RateLimited(refused.reason)

    def schedule_flush(self, session: Session) -> None:
        """``session`` has messages to write: write them once this turn of the loop is done."""
        if not self._unflushed:
            asyncio.get_running_loop().call_soon(self._flush)
        self._unflushed.append(session)

    def _flush(self) -> None:
        sessions, self._unflushed = self._unflushed, []
        for session in sessions:
            try:
                session.flush()
            except Exception:
                log.exception("could not write to a connection")

    async def apply(self, produce: Callable[[], list[Outbound]]) -> None:
        """Run one synchronous lobby step, persist its events, then send its messages.

        Raises :class:`errors.StorageFailed`, sending none of them, if the
        database lost the events (:meth:`_lost` has set the rooms back).
        """
        outs = produce()
        events = self.lobby.take_events()
        turns = self.lobby.take_bot_turns()
        try:
            await self.storage.persist(events)
        except WriteFailed as exc:
            raise errors.StorageFailed(
                f"the server could not store that, so it was not done ({exc.reason})"
            ) from None
        self.deliver(outs)
        for turn in turns:
            task = asyncio.create_task(self._think(turn))
            self._thinking.add(task)
            task.add_done_callback(self._thinking.discard)

    async def resume_series(self) -> None:
        """At start: the tournaments and the series being played when the server stopped
        go on. Tournaments first, so that their tables' rooms are claimed as the
        lobby rebuilds them; then the tables that could not be rebuilt are ended."""
        unfinished = await self.storage.unfinished()
        activity = {saved.room_id: saved.last_activity_ms for saved in unfinished}
        desk = self.lobby.tournaments
        for stored in await self.storage.unfinished_tournaments():
            tid = stored.tournament_id
            try:
                if stored.state is None:
                    raise ValueError("no snapshot stored")
                desk.restore(stored.state, stored.saved_ms, activity, now_ms())
            except Exception as exc:
                log.warning("tournament %s cannot be resumed (%s): abandoned", tid, exc)
                await self.storage.abandon_tournament(tid)
            else:
                log.info("resumed tournament %s", tid)
        # Table results newer than a tournament's snapshot are in the tables' series.
        for tid, room_id, series_id in desk.tables_to_check():
            series = await self.storage.series(series_id)
            if series is None:
                continue
            deals = [
                {pid: r["score"] for pid, r in deal["results"].items()}
                for deal in series["deals"]
                if deal["status"] == "finished"
            ]
            finished = series["status"] == "finished"
            winner = series["winner_id"]
            await self.apply(
                functools.partial(desk.catch_up, tid, room_id, deals, finished, winner, now_ms())
            )
        for saved in unfinished:
            if saved.origin == "tournament" and not desk.claims(saved.room_id):
                # Its tournament is over or was not resumed: neither is the table.
                await self.storage.abandon(saved.series_id)
                continue
            try:
                await self.apply(functools.partial(self._restore, saved))
            except Exception as exc:
                log.warning("series %s cannot be resumed (%s): abandoned", saved.series_id, exc)
                await self.storage.abandon(saved.series_id)
            else:
                log.info("resumed series %s in room %s", saved.series_id, saved.room_id)
        await self.apply(lambda: desk.resumed(now_ms()))

    def _restore(self, saved: Resumable) -> list[Outbound]:
        return self.lobby.restore(saved, now_ms())

    def _lost(self, events: Sequence[Event]) -> None:
        """Storage lost these events (called before any other task runs): the rooms
        and tournaments they concern leave play now; the rooms come back from the
        database."""
        rooms, notices = self.lobby.withdraw(events)
        self.deliver(notices)
        for room in rooms:
            task = asyncio.create_task(self._rebuild(room))
            self._rebuilding.add(task)
            task.add_done_callback(self._rebuilding.discard)

    async def _rebuild(self, room: Room) -> None:
        """``room`` again, as stored: its series resumes where its last stored move left it."""
        now = now_ms()
        again = self._rebuilt_ms.get(room.id)
        self._rebuilt_ms[room.id] = now
        try:
            self.lobby.ratings.load(await self.storage.ratings(), replace=True)
            found = await self.storage.unfinished(room.id)
            if not found or (again is not None and now - again < REBUILD_AGAIN_MS):
                # Nothing stored to go on from (a room still waiting, a series over),
                # or lost again straight after its rebuild: it ends here.
                for saved in found:
                    await self.storage.abandon(saved.series_id)
                self.deliver(self.lobby.gone(room))
                return
            spectators = dict(room.spectators)
            await self.apply(lambda: self.lobby.rebuild(found[-1], spectators, now_ms()))
            log.warning("room %s rebuilt from the database after a lost write", room.id)
        except errors.StorageFailed:
            pass  # lost again: _lost has it in hand
        except Exception:
            log.exception("room %s could not be rebuilt after a lost write", room.id)
            self.deliver(self.lobby.gone(room))

    async def _think(self, turn: BotTurn) -> None:
        """A bot seat's move, computed off the loop, goes back in as its placement."""
        cell = await self.bots.move(turn)
        try:
            await self.apply(
                lambda: self.lobby.bot_move(turn.room_id, turn.player_id, turn.turn, cell, now_ms())
            )
        except (errors.RoomError, errors.StorageFailed) as exc:
            # The clock placed it first, the room is gone, or it could not be stored.
            log.info("bot move for %s turn %d dropped: %s", turn.player_id, turn.turn, exc)
        except Exception:
            log.exception("bot move for %s turn %d failed", turn.player_id, turn.turn)

    async def stop_thinking(self) -> None:
        tasks = [*self._thinking, *self._rebuilding]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.bots.close()

    def deliver(self, outs: list[Outbound]) -> None:
        for out in outs:
            text = out.text()
            for player_id in out.to:
                for session in self.by_player.get(player_id, ()):
                    session.send(text)

    # ------------------------------------------------------------------

    async def receive(self, session: Session, data: str | bytes) -> None:
        now = now_ms()
        if not session.bucket.take(now):
            if session.bucket.should_warn(now):
                session.send_error(
                    errors.RateLimited.code,
                    f"more than {self.config.rate_per_second:g} frames per second:"
                    " frames are being dropped",
                )
            return
        size = len(data) if isinstance(data, bytes) else len(data.encode("utf-8", "replace"))
        if size > self.config.max_frame_bytes:
            session.send_error(
                errors.FrameTooLarge.code,
                f"frame of {size} bytes; the limit is {self.config.max_frame_bytes}",
            )
            return
        try:
            message = parse_client(data)
        except ProtocolError as exc:
            session.send_error(exc.code, exc.reason, ref=exc.ref)
            return
        try:
            await self._dispatch(session, message)
        except errors.ServerError as exc:
            session.send_error(
                exc.code, exc.reason, room_id=getattr(message, "room_id", None), ref=message.ref
            )
        except Exception:
            log.exception("internal error handling %s", message.type)
            session.send_error(
                errors.INTERNAL_ERROR, "the server failed to handle that request", ref=message.ref
            )

    async def _dispatch(self, session: Session, message: ClientMessage) -> None:
        if isinstance(message, Hello):
            await self._hello(session, message)
            return
        player = session.player
        if player is None:
            raise errors.HelloRequired("say hello first")
        if isinstance(message, Ping):
            session.send_message(Pong(ref=message.ref))
            return
        self._require_storage()
        kind = QUOTA_KINDS.get(type(message))
        if kind is not None:
            self._spend(kind, session.address, player.id)
        await self.apply(lambda: self.lobby.handle(player, message, now_ms()))

    def _require_storage(self) -> None:
        """While the database cannot be written, requests are refused, untouched:
        what they decided could not be acknowledged until it can."""
        failing = self.storage.failing
        if failing is not None:
            raise errors.StorageFailed(
                f"the server cannot store anything right now ({failing}): nothing was done;"
                " send it again in a moment"
            )

    async def _hello(self, session: Session, hello: Hello) -> None:
        if session.player is not None:
            raise errors.AlreadyIdentified("this connection has already said hello")
        if hello.protocol != PROTOCOL_VERSION:
            raise errors.UnsupportedProtocol(
                f"this server speaks protocol {PROTOCOL_VERSION}, not {hello.protocol}"
            )
        if hello.token is not None and hello.name is not None:
            raise errors.ServerError(
                "hello: give a token (to sign in again) or a name (to register), not both",
                code="bad_message",
            )
        self._require_storage()
        issued: str | None = None
        self._spend("signin", session.address, None)
        if hello.token is not None:
            digest = token_hash(hello.token)
            stored = self._cached_player(digest) or await self.storage.player_by_token_hash(digest)
            if stored is None:
                raise errors.BadToken("no player has that token")
            self._spend("signin", None, stored.id)
        else:
            self._spend("guest" if hello.guest else "register", session.address, None)
            if hello.guest:
                name = hello.name or f"guest-{secrets.token_hex(2)}"
            elif hello.name is None:
                raise errors.NameRequired("a new player needs a name (or say guest: true)")
            else:
                name = hello.name
            if not hello.guest and reserved(name):
                raise errors.NameTaken(
                    f"the name {name!r} is kept for the server's guests and bots; pick another"
                )
            issued = secrets.token_urlsafe(32)
            digest = token_hash(issued)
            stored = StoredPlayer(f"p-{secrets.token_hex(6)}", name, hello.guest, hello.bot)
            try:
                await self.storage.create_player(stored, digest)
            except NameInUse:
                raise errors.NameTaken(
                    f"the name {name!r} is taken, or looks like one that is; pick another"
                ) from None
            except WriteFailed as exc:
                raise errors.StorageFailed(
                    f"the server could not register you ({exc.reason}); try again"
                ) from None
        self._cache_player(digest, stored)
        if session.player is not None:  # a second hello raced the first one
            raise errors.AlreadyIdentified("this connection has already said hello")
        player = PlayerInfo(id=stored.id, name=stored.name, guest=stored.guest, bot=stored.bot)
        session.player = player
        self.by_player.setdefault(player.id, set()).add(session)
        session.send_message(
            Welcome(server=SERVER_NAME, player=player, token=issued, ref=hello.ref)
        )
        address = session.address
        await self.apply(lambda: self.lobby.connect(player, now_ms(), address=address))

    def drop(self, session: Session) -> None:
        """Let go of a connection the server is closing (too slow) at once: its player's
        rooms see it go now, not once its socket has finished closing."""
        _background(self.closed(session))

    def hello_overdue(self, session: Session) -> None:
        """A connection that has not said hello in time is closed."""
        if session.player is None and not session.ws.closed and not session.closing:
            session.closing = True
            _background(session.ws.close(code=WSCloseCode.POLICY_VIOLATION, message=b"no hello"))

    async def closed(self, session: Session) -> None:
        if session.gone:
            return
        session.gone = True
        self.sessions.discard(session)
        player = session.player
        if player is None:
            return
        others = self.by_player.get(player.id, set())
        others.discard(session)
        if not others:
            self.by_player.pop(player.id, None)
            with contextlib.suppress(errors.StorageFailed):  # its rooms were set back
                await self.apply(lambda: self.lobby.disconnect(player.id, now_ms()))

    async def tick_forever(self) -> None:
        interval = self.config.tick_ms / 1000
        while True:
            await asyncio.sleep(interval)
            try:
                await self.apply(lambda: self.lobby.tick(now_ms()))
                self.quotas.sweep(now_ms(), 200)
            except errors.StorageFailed:
                pass  # the storage log says why; the rooms concerned were set back
            except Exception:
                log.exception("clock tick failed")


HUB = web.AppKey("hub", Hub)


# ----------------------------------------------------------------------
# HTTP handlers


Origin = tuple[str, str, int]  # scheme, host, port: what browsers compare


def parse_origin(url: str) -> Origin | None:
    """``url``'s origin (``ws``/``wss`` read as ``http``/``https``); None if it has none."""
    try:
        parts = urlsplit(url.strip())
        scheme = {"ws": "http", "wss": "https"}.get(parts.scheme.lower(), parts.scheme.lower())
        port = parts.port
    except ValueError:
        return None
    if scheme not in ("http", "https") or not parts.hostname:
        return None
    return (scheme, parts.hostname.lower(), port or (443 if scheme == "https" else 80))


LOOPBACK = ("127.0.0.1", "localhost", "::1")


def own_origins(config: ServerConfig, port: int) -> frozenset[Origin]:
    """The origins of pages the server trusts: from the address it listens on (every
    loopback name when that is loopback or every interface), from each public URL
    and each allowed origin. Never from anything a request says."""
    host = config.host.strip("[]").lower()
    hosts = {host}
    if host in LOOPBACK or host.startswith("127.") or host in ("", "0.0.0.0", "::"):
        hosts = (hosts | set(LOOPBACK)) - {"", "0.0.0.0", "::"}
    found = {("http", h, port) for h in hosts}
    for url in (*config.public_urls, *config.allowed_origins):
        origin = parse_origin(url)
        if origin is not None:
            found.add(origin)
    return frozenset(found)


def origin_allowed(origin: str | None, trusted: frozenset[Origin]) -> bool:
    """May a page from ``origin`` open the WebSocket?

    Browsers send ``Origin`` with every WebSocket upgrade; other clients send
    none and are welcome. A page from one of the server's own origins
    (:func:`own_origins`) is allowed; every other page is refused, so that a
    foreign site cannot act as its visitor's player. The request's ``Host`` is
    not consulted: a page on a name that an attacker points at the server (DNS
    rebinding) sends a matching ``Host``.
    """
    if origin is None:
        return True
    parsed = parse_origin(origin)
    return parsed is not None and parsed in trusted


def client_address(remote: str | None, headers: Mapping[str, str], trusted: tuple[str, ...]) -> str:
    """The address a connection is counted against.

    The peer's address, unless the peer is a trusted reverse proxy: then the
    last address in ``X-Forwarded-For``, the one that proxy appended (earlier
    entries were written by the client and prove nothing).
    """
    address = remote or "?"
    if address in trusted:
        forwarded = headers.get("X-Forwarded-For", "")
        hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
        if hops:
            return hops[-1]
    return address


async def websocket(request: web.Request) -> web.WebSocketResponse:
    hub = request.app[HUB]
    config = hub.config
    origin = request.headers.get("Origin")
    if origin is not None and not origin_allowed(origin, own_origins(config, _local_port(request))):
        raise web.HTTPForbidden(text=f"WebSocket connections from {origin} are not allowed\n")
    address = client_address(request.remote, request.headers, config.trusted_proxies)
    if hub.by_address[address] >= config.max_connections_per_address:
        raise web.HTTPTooManyRequests(
            text=f"at most {config.max_connections_per_address} connections per address\n"
        )
    hub.by_address[address] += 1  # counted before the first await: no race past the limit
    try:
        ws = web.WebSocketResponse(
            max_msg_size=config.hard_max_frame_bytes,
            heartbeat=config.heartbeat_s,
            compress=config.compress,
        )
        await ws.prepare(request)
        session = Session(
            ws,
            TokenBucket(config.rate_per_second, config.rate_burst, now_ms()),
            config.max_unsent_bytes,
            # With permessage-deflate aiohttp must write the frames: it keeps the stream.
            transport=aiohttp_adapters.raw_frame_transport(ws, request),
            on_pending=hub.schedule_flush,
            address=quota_key(address),
            socket=request.transport,
            on_too_slow=hub.drop,
        )
        hub.sessions.add(session)
        no_hello = asyncio.get_running_loop().call_later(
            config.hello_timeout_s, hub.hello_overdue, session
        )
        try:
            async for frame in ws:
                if frame.type in (WSMsgType.TEXT, WSMsgType.BINARY):
                    await hub.receive(session, frame.data)
                elif frame.type == WSMsgType.ERROR:
                    break
        finally:
            no_hello.cancel()
            await hub.closed(session)
            await session.stop()
            aiohttp_adapters.drop_heartbeat_callback(request)
    finally:
        hub.by_address[address] -= 1
        if hub.by_address[address] <= 0:
            del hub.by_address[address]
    return ws


def _local_port(request: web.Request) -> int:
    """The port this connection reached the server on (its socket's, not a header's)."""
    transport = request.transport
    sockname = transport.get_extra_info("sockname") if transport is not None else None
    if isinstance(sockname, tuple) and len(sockname) >= 2:
        return int(sockname[1])
    return request.app[CONFIG].port


async def healthz(request: web.Request) -> web.Response:
    """``ok``, or 503 ``storage_failing`` while the database cannot be written."""
    hub = request.app[HUB]
    failing = hub.storage.failing
    return web.json_response(
        {
            "status": "ok" if failing is None else "storage_failing",
            "protocol": PROTOCOL_VERSION,
            "rooms": len(hub.lobby.rooms),
            "connections": len(hub.sessions),
            "storage": failing,
        },
        status=200 if failing is None else 503,
    )


def _not_found(code: str, reason: str) -> web.Response:
    return web.json_response({"error": {"code": code, "reason": reason}}, status=404)


async def match_history(request: web.Request) -> web.Response:
    match = await request.app[STORAGE].match(request.match_info["match_id"])
    if match is None:
        return _not_found("match_not_found", "no such match")
    return web.json_response(match)


async def player_history(request: web.Request) -> web.Response:
    found = await request.app[STORAGE].player_matches(request.match_info["name"])
    if found is None:
        return _not_found("player_not_found", "no such player")
    return web.json_response(found)


async def leaderboard(request: web.Request) -> web.Response:
    """``/api/leaderboard/{pace}?top=N&around=NAME&arena=1``: a ``leaderboard``'s content."""
    paces = [p.value for p in Pace]
    if request.match_info["pace"] not in paces:
        reason = f"unknown pace {request.match_info['pace']!r}: use one of {', '.join(paces)}"
        return _not_found("unknown_pace", reason)
    try:
        arena = request.query.get("arena", "0")
        if arena not in ("0", "1"):
            raise ValueError("arena is 0 or 1")
        asked = GetLeaderboard(
            pace=Pace(request.match_info["pace"]),
            top=int(request.query.get("top", "20")),
            around=request.query.get("around"),
            arena=arena == "1",
        )
    except ValueError as exc:
        return web.json_response(
            {"error": {"code": "bad_request", "reason": str(exc).splitlines()[0]}}, status=400
        )
    nobody = PlayerInfo(id="", name="")
    try:
        board = request.app[HUB].lobby.leaderboard(nobody, asked)
    except errors.PlayerNotFound as exc:
        return _not_found(exc.code, exc.reason)
    return web.json_response(board.model_dump(mode="json", exclude={"type", "ref"}))


async def series_history(request: web.Request) -> web.Response:
    found = await request.app[STORAGE].series(request.match_info["series_id"])
    if found is None:
        return _not_found("series_not_found", "no such series")
    return web.json_response(found)


async def player_ratings(request: web.Request) -> web.Response:
    found = await request.app[STORAGE].player_ratings(request.match_info["name"])
    if found is None:
        return _not_found("player_not_found", "no such player")
    return web.json_response(found)


def _bad_request(reason: str) -> web.Response:
    return web.json_response({"error": {"code": "bad_request", "reason": reason}}, status=400)


def page_query(request: web.Request) -> dict[str, Any]:
    """``?limit=N&after=CURSOR`` of a listing, as the fields of its message (a limit
    that is not a whole number stays text, which the message refuses)."""
    fields: dict[str, Any] = {}
    if "limit" in request.query:
        text = request.query["limit"]
        fields["limit"] = int(text) if text.lstrip("-").isdigit() else text
    if "after" in request.query:
        fields["after"] = request.query["after"]
    return fields


async def public_rooms(request: web.Request) -> web.Response:
    """``/api/rooms?limit=N&after=CURSOR``: a page of the ``rooms`` message."""
    try:
        asked = ListRooms.model_validate(page_query(request))
        page = request.app[HUB].lobby.list_rooms(asked)
    except ValidationError as exc:
        return _bad_request(exc.errors()[0]["msg"] + " (limit: 1 to 100)")
    except errors.RoomError as exc:
        return _bad_request(exc.reason)
    return web.json_response(page.model_dump(mode="json", exclude={"type", "ref"}))


@web.middleware
async def http_quota(request: web.Request, handler: Any) -> web.StreamResponse:
    """Every HTTP request (a WebSocket upgrade too) spends its address's quota; over it: 429."""
    hub = request.app[HUB]
    config = hub.config
    address = quota_key(client_address(request.remote, request.headers, config.trusted_proxies))
    refused = hub.quotas.take("http", address, None, now_ms())
    if refused is not None:
        return web.json_response(
            {"error": {"code": errors.RateLimited.code, "reason": refused.reason}},
            status=429,
            headers={"Retry-After": str(refused.wait_s)},
        )
    response: web.StreamResponse = await handler(request)
    return response


# ----------------------------------------------------------------------
# The application


def create_app(config: ServerConfig | None = None) -> web.Application:
    config = config or ServerConfig()
    check_config(config)  # ValueError (ConfigError): a setting out of range
    app = web.Application(middlewares=[http_quota])
    app[CONFIG] = config
    app.router.add_get("/ws", websocket)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/api/rooms", public_rooms)
    app.router.add_get("/api/matches/{match_id}", match_history)
    app.router.add_get("/api/players/{name}/matches", player_history)
    app.router.add_get("/api/players/{name}/ratings", player_ratings)
    app.router.add_get("/api/series/{series_id}", series_history)
    app.router.add_get("/api/leaderboard/{pace}", leaderboard)
    app.router.add_routes(tournament_routes(HUB, STORAGE))
    app.router.add_routes(analysis_routes(STORAGE))
    app.router.add_routes(web_routes())
    app.cleanup_ctx.append(_storage_and_lobby)
    app.cleanup_ctx.append(_clock)
    app.cleanup_ctx.append(_pruner)
    app.on_shutdown.append(_close_sockets)
    return app


async def _storage_and_lobby(app: web.Application) -> AsyncIterator[None]:
    config = app[CONFIG]
    storage = await Storage.open(config.db_path)
    try:
        admins = await identity.resolve_admins(storage.find_player, config.tournament_admins)
    except identity.AdminNotFound:
        await storage.close()
        raise
    lobby = Lobby(
        LobbyConfig(
            grace_ms=config.grace_ms,
            finished_ttl_ms=config.finished_ttl_ms,
            max_waiting_rooms_per_player=config.max_waiting_rooms_per_player,
            max_open_rooms_per_player=config.max_open_rooms_per_player,
            between_deals_ms=config.between_deals_ms,
            challenge_ttl_ms=config.challenge_ttl_ms,
            between_rounds_ms=config.between_rounds_ms,
            admins=admins,
            max_waiting_rooms_per_address=config.max_waiting_rooms_per_address,
            max_open_rooms_per_address=config.max_open_rooms_per_address,
            max_tournaments_per_address=config.max_tournaments_per_address,
            max_waiting_rooms=config.max_waiting_rooms,
            max_registering_tournaments=config.max_registering_tournaments,
            waiting_room_ttl_ms=config.waiting_room_ttl_ms,
            registration_ttl_ms=config.registration_ttl_ms,
        ),
        bots=bot_factory,
        think_elsewhere=True,
        levels=bot_levels(),
    )
    lobby.ratings.load(await storage.ratings())
    lobby.shadowed = await storage.shadowed_players()
    app[STORAGE] = storage
    hub = Hub(config, storage, lobby, BotPool())
    app[HUB] = hub
    app[ANALYST] = Analyst()
    await hub.resume_series()
    yield
    await app[ANALYST].close()
    await hub.stop_thinking()
    await storage.close()


async def _clock(app: web.Application) -> AsyncIterator[None]:
    task = asyncio.create_task(app[HUB].tick_forever(), name="clock")
    yield
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


async def prune_forever(storage: Storage, config: ServerConfig) -> None:
    """At start and every ``prune_every_s``: forget what nobody will read (server.pruning)."""
    while True:
        try:
            deleted = await storage.prune(now_ms() - config.prune_after_ms)
            if any(deleted.values()):
                log.info("forgot %d rooms never played and %d tournaments never started",
                         deleted["rooms"], deleted["tournaments"])  # fmt: skip
        except Exception:
            log.exception("pruning the database failed")
        await asyncio.sleep(config.prune_every_s)


async def _pruner(app: web.Application) -> AsyncIterator[None]:
    config = app[CONFIG]
    task = None
    if config.prune_after_ms:
        task = asyncio.create_task(prune_forever(app[STORAGE], config), name="pruner")
    yield
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def _close_sockets(app: web.Application) -> None:
    for session in list(app[HUB].sessions):
        await session.ws.close(code=WSCloseCode.GOING_AWAY, message=b"server shutdown")


def event_loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop where it is installed (a dependency except on Windows), else None.

    None means asyncio's own loop. docs/benchmarks.md has the measurement.
    """
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


# The server makes many short-lived objects per message and few reference
# cycles. With the default thresholds (700, 10, 10) a loaded server ran a full
# collection every second or two, each pausing every connection for up to 270 ms
# (docs/benchmarks.md); with these, young collections are rare and full ones
# rarer still, and memory stays the same.
GC_THRESHOLDS = (100_000, 50, 20)


async def _collect_every(seconds: float) -> None:
    """A full garbage collection every ``seconds``.

    GC_THRESHOLDS make full collections rare, so garbage in reference cycles
    would wait a long time for one. The server makes none that we know of
    (closed connections are freed at once: aiohttp_adapters.drop_heartbeat_callback); this is
    the safety net for any other, and it is rare because a full collection of
    a loaded server pauses every player for a fifth of a second or more
    (docs/benchmarks.md, "The paced tail").
    """
    while True:
        await asyncio.sleep(seconds)
        started = time.perf_counter()
        found = gc.collect()
        log.debug("full collection: %d objects in %.1f ms", found,
                  (time.perf_counter() - started) * 1000)  # fmt: skip


def run(config: ServerConfig, *, announce: Callable[[str], None] = print) -> None:
    """Run :func:`serve` on the fastest event loop available, until SIGINT or SIGTERM.

    This is the process's entry point, so it also tunes the garbage collector:
    what exists at start-up (modules, classes) is frozen out of collections.
    """
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    with asyncio.Runner(loop_factory=event_loop_factory()) as runner:
        runner.run(serve(config, announce=announce))


class HttpLog(logging.LoggerAdapter):  # type: ignore[type-arg]
    """The HTTP layer's logger: a request the parser refused (a request line or a
    header too long, too many headers, a duplicate Host, not HTTP at all) is the
    client's fault, answered 400 and logged as one warning line, no traceback;
    anything else is logged as aiohttp logs it."""

    def exception(self, msg: object, *args: object, exc_info: Any = True, **kw: Any) -> None:
        if isinstance(exc_info, HttpProcessingError):
            reason = (exc_info.message or str(exc_info)).splitlines()[0][:200]
            self.warning("%s: %s %s", str(msg) % args if args else msg, exc_info.code, reason)
            return
        super().exception(msg, *args, exc_info=exc_info, **kw)


def make_runner(app: web.Application, config: ServerConfig) -> web.AppRunner:
    """The app's runner with the HTTP layer's limits (docs/operations.md, Limits).

    aiohttp's keep-alive timer starts when a connection opens and again after
    each response, and closes the connection if no complete request head has
    arrived by then: it is the header timeout. A body the handler does not read
    (none of ours reads one) is drained for at most ``lingering_time``.
    """
    return web.AppRunner(
        app,
        handle_signals=False,
        access_log=None,
        keepalive_timeout=config.header_timeout_s,
        lingering_time=config.body_timeout_s,
        max_line_size=config.max_request_line_bytes,
        max_field_size=config.max_header_bytes,
        max_headers=config.max_headers,
        logger=HttpLog(logging.getLogger("aiohttp.server"), {}),
    )


async def serve(config: ServerConfig, *, announce: Callable[[str], None] = print) -> None:
    """Run the server until SIGINT or SIGTERM."""
    runner = make_runner(create_app(config), config)
    await runner.setup()
    site = web.TCPSite(runner, config.host, config.port)
    try:
        await site.start()
    except BaseException:
        # The database and clock were started by setup(): stop them before failing.
        await runner.cleanup()
        raise
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    port = runner.addresses[0][1] if runner.addresses else config.port
    announce(
        f"cribsquares server on http://{config.host}:{port} "
        f"(WebSocket ws://{config.host}:{port}/ws), database {config.db_path}; "
        f"play in a browser at http://{config.host}:{port}/"
    )
    collector = None
    if config.full_collection_s > 0:
        collector = asyncio.create_task(_collect_every(config.full_collection_s))
    try:
        await stop.wait()
    finally:
        if collector is not None:
            collector.cancel()
        await runner.cleanup()
