"""One WebSocket connection: who it is, its flood bucket and its outgoing frames."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

from aiohttp import WSCloseCode, web
from pydantic import BaseModel

from protocol.connection import ErrorMessage
from protocol.fields import BATCHING_PROTOCOL, PlayerInfo
from protocol.wire import batch_frame, dump_server, echoable_ref, readable
from server.limits import TokenBucket
from server.shell import aiohttp_adapters
from server.shell.aiohttp_adapters import FrameTransport
from server.shell.tasks import halt

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Session:
    """One WebSocket connection: who it is, its flood bucket and its outgoing frames.

    Messages are not written one by one: :meth:`send` collects them and the hub
    flushes every session once per turn of the event loop, all the frames of a
    session in one write. A session that said ``protocol`` 2 gets them as one
    frame, the JSON array of its messages in order (:func:`batch_frame`); in
    protocol 1 each message is its own frame, as ever. Without compression the
    frames are encoded here and handed to the transport directly (one system
    call for, say, a ``placed`` and the ``progress`` after it); with compression
    negotiated they go through aiohttp, which keeps the deflate stream, from a
    writer task.
    """

    ws: web.WebSocketResponse
    bucket: TokenBucket
    limit: int  # bytes the transport may hold unsent before the client counts as too slow
    transport: FrameTransport | None = None  # None: send through aiohttp (deflate)
    player: PlayerInfo | None = None
    protocol: int = 1  # the version its hello said (set with ``player``)
    follow_node: bool = False  # its hello asked for node_hint (set with ``player``)
    asked_node: str | None = None  # the node its URL asked for (``?node=``), if any
    hinted: dict[str, str] = field(default_factory=dict)  # room id -> node it was told of
    pending: list[str] = field(default_factory=list)
    on_pending: Callable[[Session], None] | None = None
    closing: bool = False
    address: str = "?"  # the quota key of its remote address (server.limits.quota_key)
    socket: asyncio.BaseTransport | None = None  # the connection, to cut a slow one off
    on_too_slow: Callable[[Session], None] | None = None  # the hub drops it from its rooms
    gone: bool = False  # the hub has let go of it (closed, or dropped as too slow)
    _queue: asyncio.Queue[tuple[str, int]] | None = None  # frames for aiohttp, messages in each
    _queued: int = 0  # messages in _queue
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
        batched = self.protocol >= BATCHING_PROTOCOL and len(texts) > 1
        transport = self.transport
        if transport is None:
            if self._queue is None:
                self._queue = asyncio.Queue()
                self._writer = asyncio.create_task(self._write_through_aiohttp())
            if batched:
                self._queue.put_nowait((batch_frame(texts), len(texts)))
            else:
                for text in texts:
                    self._queue.put_nowait((text, 1))
            # About 256 bytes a message queued, however they are framed.
            self._queued += len(texts)
            if self._queued * 256 > self.limit:
                self._too_slow()
            return
        if transport.is_closing():
            return
        if transport.get_write_buffer_size() > self.limit:
            self._too_slow()
            return
        if batched:
            texts = [batch_frame(texts)]
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
        BACKGROUND.add(task)
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
            text, messages = await self._queue.get()
            self._queued -= messages
            try:
                await self.ws.send_str(text)
            except (ConnectionError, RuntimeError):
                return

    async def stop(self) -> None:
        await halt(self._writer)


BACKGROUND: set[asyncio.Task[Any]] = set()


SLOW_CLOSE_S = 2.0  # a too-slow connection's close frame gets this long before the cut


def _closed_slow_client(task: asyncio.Task[Any]) -> None:
    BACKGROUND.discard(task)
    if not task.cancelled() and task.exception() is not None:
        log.info("closing a slow connection: %s", task.exception() or "timed out")


def in_background(coroutine: Any) -> None:
    task = asyncio.create_task(coroutine)
    BACKGROUND.add(task)
    task.add_done_callback(BACKGROUND.discard)
