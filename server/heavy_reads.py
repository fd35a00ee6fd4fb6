"""Big HTTP answers built away from the event loop, once, and kept once final.

A tournament of 512 entrants over 20 rounds is a 4 MB answer and its boards
8 MB: reading the rows, building the JSON and writing it took the event loop
0.4 to 0.7 s each, and every game on the server waited that long
(docs/benchmarks.md, *Heavy reads*). Here such an answer is built in a thread
of its own, on an event loop of its own with its own reader of the store, and
its JSON is written piece by piece (:func:`json_bytes`), so that the server's
loop takes the interpreter back within its switch interval (5 ms) whenever it
has something to do. One thread: big answers are built one at a time, and
several asking for the same one at once wait for the one build.

An answer that can no longer change (a tournament over, read from the store
alone) is kept, up to ``max_bytes`` in all (the least recently used going
first) and at most ``ttl_s``; what each answer costs its asker is charged by
the HTTP layer (the budget of bytes read, docs/operations.md).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Iterator
from typing import Any, NamedTuple, TypeVar

from server.storage.backends import backend_for
from server.storage.sql import Reader


class Built(NamedTuple):
    """An answer's body and type; ``final``: it can no longer change (kept)."""

    body: bytes
    content_type: str
    final: bool


Build = Callable[[Reader], Awaitable[Built | None]]  # None: nothing there (404)
T = TypeVar("T")


def json_bytes(value: Any) -> bytes:
    """``json.dumps(value, separators=(",", ":"))`` as UTF-8, written a piece at a time
    (lists and objects three levels down, each element alone) so that a thread
    writing 8 MB lets other threads run between the pieces."""
    return "".join(_pieces(value, 3)).encode("utf-8")


def _pieces(value: Any, depth: int) -> Iterator[str]:
    if depth and isinstance(value, list) and value:
        yield "["
        for n, item in enumerate(value):
            if n:
                yield ","
            yield from _pieces(item, depth - 1)
        yield "]"
    elif depth and isinstance(value, dict) and value:
        yield "{"
        for n, (key, item) in enumerate(value.items()):
            yield ("," if n else "") + json.dumps(str(key)) + ":"
            yield from _pieces(item, depth - 1)
        yield "}"
    else:
        yield json.dumps(value, separators=(",", ":"))


class HeavyReads:
    """The thread that builds big answers, and the final ones it keeps."""

    def __init__(self, store: str, *, max_bytes: int = 64 << 20, ttl_s: float = 600.0) -> None:
        self.store = store
        self.max_bytes = max_bytes
        self.ttl_s = ttl_s
        self._kept: OrderedDict[Hashable, tuple[float, Built]] = OrderedDict()
        self._kept_bytes = 0
        self._building: dict[Hashable, asyncio.Future[Built | None]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._reader: Reader | None = None

    async def start(self) -> None:
        loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=loop.run_forever, name="heavy-reads", daemon=True)
        self._thread.start()
        self._loop = loop
        self._reader = await self._there(backend_for(self.store).open_reader())

    async def close(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        if self._reader is not None:
            await self._there(self._reader.close())
        loop.call_soon_threadsafe(loop.stop)
        await asyncio.to_thread(thread.join, 10)
        loop.close()
        self._loop = self._thread = self._reader = None

    async def _there(self, work: Awaitable[T]) -> T:
        assert self._loop is not None

        async def run() -> T:
            return await work

        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(run(), self._loop))

    async def answer(self, key: Hashable, build: Build) -> Built | None:
        """The answer ``key``: kept, being built (waited for), or built now in the thread."""
        kept = self._kept.get(key)
        if kept is not None:
            at, built = kept
            if time.monotonic() - at < self.ttl_s:
                self._kept.move_to_end(key)
                return built
            self._forget(key)
        waiting = self._building.get(key)
        if waiting is not None:
            return await asyncio.shield(waiting)
        future: asyncio.Future[Built | None] = asyncio.get_running_loop().create_future()
        self._building[key] = future
        try:
            assert self._reader is not None, "HeavyReads.start() first"
            fresh = await self._there(build(self._reader))
        except asyncio.CancelledError:
            future.cancel()
            raise
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: those waiting get it raised
            raise
        finally:
            del self._building[key]
        if fresh is not None and fresh.final and len(fresh.body) <= self.max_bytes:
            self._kept[key] = (time.monotonic(), fresh)
            self._kept_bytes += len(fresh.body)
            while self._kept_bytes > self.max_bytes:
                self._forget(next(iter(self._kept)))
        future.set_result(fresh)
        return fresh

    def _forget(self, key: Hashable) -> None:
        _, built = self._kept.pop(key)
        self._kept_bytes -= len(built.body)
