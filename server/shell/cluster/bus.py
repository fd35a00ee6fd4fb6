"""The node's Redis connections: commands, one ordered publisher, and its subscriptions.

Every node listens on its own channel (``cs:node:ID``) and on the broadcast one
(``cs:all``). Messages are JSON objects with a kind (``k``) and the sender's
node id (``from``). Everything a node publishes (and its presence writes)
goes through one connection in the order it was asked, whatever queued up
since the last round trip in one pipeline: a player's sign-in broadcast
reaches the owner of its room before the placement it sends next (Redis
delivers a connection's publications in order).

The reader takes one message at a time and hands it to the node's handler at
once: a message that only writes to this node's sessions or resolves a waiting
command is handled right there; one that needs to wait (a command to run, a
sign-in to apply) comes back as a coroutine, run in a task of its own, started in
the order the messages came.

Redis is trusted: what travels here has passed the sending node's checks, and
holds cards addressed to players (docs/scaling.md, Security).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable, Coroutine
from typing import Any

import redis.asyncio as aioredis

from server.shell.tasks import halt

log = logging.getLogger(__name__)

BROADCAST = "cs:all"
# The version of what nodes publish to each other: a change a node of the version
# before could not read (a message's kind, a field) makes it the next one, and a
# node of one version does not join a cluster running the other (Leases.join). A
# kind it may ignore (it drops kinds it does not know) and lose nothing by is not
# such a change: ``seats`` (server/shell/cluster/hints.py) only lets a node hint.
# Version 2: an ``out`` item may carry a third element, the text for the asking
# connection alone (a reply's ref is its own), and a second element None (a read's
# answer for that connection only), with ``sid`` beside ``done``
# (server/shell/cluster/delivery.py).
VERSION = 2


def channel(node: str) -> str:
    return f"cs:node:{node}"


# A message's handler: done at once (None), or what is left to do as a coroutine.
Handler = Callable[[dict[str, Any]], Coroutine[Any, Any, None] | None]


class Bus:
    def __init__(self, url: str, node: str) -> None:
        self.node = node
        self.redis: aioredis.Redis = aioredis.Redis.from_url(url, decode_responses=True)
        # One connection for every publication, in order.
        self._publisher: aioredis.Redis = aioredis.Redis.from_url(
            url, decode_responses=True, single_connection_client=True
        )
        # Commands to send, in order: a writer sends all that queued up in one pipeline
        # (with the future of its reply, or None: nobody waits for it).
        self._outbox: list[tuple[tuple[Any, ...], asyncio.Future[Any] | None]] = []
        self._wake = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None
        self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        self._reader: asyncio.Task[None] | None = None
        self._handler: Handler | None = None
        self._handling: set[asyncio.Task[None]] = set()
        # A command nobody waited for failed (Redis down or restarting): the other
        # nodes may have missed a publication. The node resets it once it resends.
        self.missed = False

    async def start(self, handler: Handler) -> None:
        """Subscribe, then hand every message to ``handler`` as it comes; what it
        leaves to do runs in a task of its own, started in the order the messages
        came (the hub's steps run synchronously up to their first wait, so they are
        taken in that order)."""
        await self.redis.ping()
        self._handler = handler
        await self._pubsub.subscribe(channel(self.node), BROADCAST)
        self._reader = asyncio.create_task(self._read(), name="cluster-bus-reader")
        self._writer = asyncio.create_task(self._write(), name="cluster-bus-writer")

    async def _read(self) -> None:
        while True:
            try:
                message = await self._pubsub.get_message(timeout=None)  # until one comes
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("cluster: reading the bus failed (%s); again in a moment", exc)
                await asyncio.sleep(0.5)
                continue
            if message is None or message.get("type") != "message":
                continue
            try:
                payload = json.loads(message["data"])
            except (TypeError, ValueError):
                log.warning("cluster: a message that is not JSON on %s", message.get("channel"))
                continue
            if isinstance(payload, dict) and payload.get("from") != self.node:
                self._dispatch(payload)

    def _dispatch(self, payload: dict[str, Any]) -> None:
        assert self._handler is not None
        try:
            rest = self._handler(payload)
        except Exception as exc:
            self._failed(payload, exc)
            return
        if rest is not None:
            task = asyncio.create_task(self._finish(payload, rest))
            self._handling.add(task)
            task.add_done_callback(self._handling.discard)

    async def _finish(self, payload: dict[str, Any], rest: Coroutine[Any, Any, None]) -> None:
        try:
            await rest
        except Exception as exc:
            self._failed(payload, exc)

    def _failed(self, payload: dict[str, Any], exc: Exception) -> None:
        if isinstance(exc, (KeyError, TypeError, ValueError)):
            # Not what a node sends: one line, and the node goes on.
            log.warning("cluster: a malformed %r message from %r (%s: %s)", payload.get("k"),
                        payload.get("from"), type(exc).__name__, exc)  # fmt: skip
        else:
            log.error("cluster: handling a %r message failed", payload.get("k"), exc_info=exc)

    def send(self, *command: Any) -> asyncio.Future[Any]:
        """Queue a Redis command, sent in order with every other (its reply, later)."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._outbox.append((command, future))
        self._wake.set()
        return future

    def post(self, *command: Any) -> None:
        """Queue a Redis command whose reply nobody waits for (a failure is logged)."""
        self._outbox.append((command, None))
        self._wake.set()

    async def publish(self, node: str | None, payload: dict[str, Any]) -> int:
        """Send ``payload`` to ``node`` (None: every node); how many nodes listened."""
        received = await self.send("PUBLISH", *self._publication(node, payload))
        return int(received)

    def publish_later(self, node: str | None, payload: dict[str, Any]) -> None:
        """Send ``payload`` to ``node`` (None: every node), in order, not waiting."""
        self.post("PUBLISH", *self._publication(node, payload))

    def _publication(self, node: str | None, payload: dict[str, Any]) -> tuple[str, str]:
        payload["from"] = self.node
        text = json.dumps(payload, separators=(",", ":"))
        return BROADCAST if node is None else channel(node), text

    async def _write(self) -> None:
        """Everything queued since the last round trip, in one pipeline, in order."""
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch, self._outbox = self._outbox, []
            if not batch:
                continue
            pipe = self._publisher.pipeline(transaction=False)
            for command, _ in batch:
                pipe.execute_command(*command)
            try:
                replies = await pipe.execute(raise_on_error=False)
            except Exception as exc:
                replies = [exc] * len(batch)
            for (command, future), reply in zip(batch, replies, strict=True):
                if future is None:
                    if isinstance(reply, Exception):
                        log.warning("cluster: %s failed (%s)", command[0], reply)
                        self.missed = True
                elif future.done():
                    continue
                elif isinstance(reply, Exception):
                    future.set_exception(reply)
                else:
                    future.set_result(reply)

    async def close(self) -> None:
        await halt(self._reader, self._writer, *self._handling)  # server/shell/tasks.py
        with contextlib.suppress(Exception):
            await self._pubsub.aclose()
        await self._publisher.aclose()
        await self.redis.aclose()
