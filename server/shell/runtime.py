"""Running the server: the event loop (uvloop where installed), the garbage
collector's tuning, the HTTP layer's limits and logger, and serving until a signal."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import signal
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web
from aiohttp.http import HttpProcessingError

from server.config import ServerConfig, store_of
from server.shell import aiohttp_adapters
from server.shell.app import create_app
from server.storage.backends import where

log = logging.getLogger(__name__)


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


class Runner(web.AppRunner):
    """aiohttp's runner, whose server answers what its parser refuses plainly
    (server.shell.aiohttp_adapters.plain_error_pages)."""

    async def setup(self) -> None:
        await super().setup()
        aiohttp_adapters.plain_error_pages(self.server)


def make_runner(app: web.Application, config: ServerConfig) -> web.AppRunner:
    """The app's runner with the HTTP layer's limits (docs/operations.md, Limits).

    aiohttp's keep-alive timer starts when a connection opens and again after
    each response, and closes the connection if no complete request head has
    arrived by then: it is the header timeout. A body the handler does not read
    (none of ours reads one) is drained for at most ``lingering_time``.
    """
    return Runner(
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
        f"(WebSocket ws://{config.host}:{port}/ws), database {where(store_of(config))}; "
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
