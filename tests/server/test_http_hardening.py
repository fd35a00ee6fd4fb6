"""The HTTP layer under attack, over raw sockets: slow headers and slow bodies are
cut off, oversized or malformed request heads get a 400 and one warning line."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import pytest

from tests.server.live import Live, running_server

pytestmark = pytest.mark.timeout(60)

SLOW = 200  # connections trickling their headers at once
CLOSE = b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"


def address(live: Live) -> tuple[str, int]:
    host, port = live.http.removeprefix("http://").split(":")
    return host, int(port)


async def closed_within(reader: asyncio.StreamReader, seconds: float) -> bool:
    """Does the server close this connection (EOF or reset) within ``seconds``?"""
    try:
        async with asyncio.timeout(seconds):
            while await reader.read(65_536):
                pass
    except TimeoutError:
        return False
    except ConnectionError:
        pass
    return True


async def trickle(writer: asyncio.StreamWriter, data: bytes, every: float) -> None:
    """Send ``data`` a byte at a time, ``every`` seconds apart, until the server hangs up."""
    for byte in data:
        await asyncio.sleep(every)
        try:
            writer.write(bytes([byte]))
            await writer.drain()
        except ConnectionError:
            return


async def get(live: Live, head: bytes) -> tuple[int, bytes]:
    """Send a raw request head; the status and the whole answer (the server closes)."""
    reader, writer = await asyncio.open_connection(*address(live))
    writer.write(head)
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(1 << 20), 10)
    writer.close()
    return int(answer.split(b" ", 2)[1]), answer


@pytest.fixture
async def live(tmp_path: Path):  # type: ignore[no-untyped-def]
    async with running_server(tmp_path / "h.db", header_timeout_s=1.0, body_timeout_s=1.0) as s:
        yield s


@pytest.mark.slow
async def test_connections_sending_their_headers_slowly_are_closed(live: Live) -> None:
    loop = asyncio.get_running_loop()
    opened = [await asyncio.open_connection(*address(live)) for _ in range(SLOW)]
    started = loop.time()
    head = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 50
    feeders = [asyncio.create_task(trickle(w, head, 0.2)) for _, w in opened]
    try:
        # Meanwhile an ordinary request is answered at once.
        status, _ = await get(live, CLOSE)
        assert status == 200
        results = await asyncio.gather(*(closed_within(r, 5.0) for r, _ in opened))
        elapsed = loop.time() - started
    finally:
        for task in feeders:
            task.cancel()
        for _, w in opened:
            w.close()
    assert all(results), f"{results.count(False)} of {SLOW} still open"
    assert elapsed < 4.0, elapsed  # 1 s of header timeout, and the time to open them


@pytest.mark.slow
async def test_a_connection_that_never_sends_a_request_is_closed(live: Live) -> None:
    reader, writer = await asyncio.open_connection(*address(live))
    try:
        assert await closed_within(reader, 3.0)
    finally:
        writer.close()


@pytest.mark.slow
async def test_a_keep_alive_connection_is_closed_once_idle(live: Live) -> None:
    reader, writer = await asyncio.open_connection(*address(live))
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    await writer.drain()
    assert (await asyncio.wait_for(reader.readline(), 5)).startswith(b"HTTP/1.1 200")
    # The next request's head trickles in: the same timeout holds it to 1 s.
    feeder = asyncio.create_task(trickle(writer, b"GET /healthz HTTP/1.1\r\nHost: x\r\n", 0.2))
    try:
        assert await closed_within(reader, 3.0)
    finally:
        feeder.cancel()
        writer.close()


@pytest.mark.slow
async def test_a_body_sent_slowly_is_not_waited_for(live: Live) -> None:
    reader, writer = await asyncio.open_connection(*address(live))
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
    await writer.drain()
    feeder = asyncio.create_task(trickle(writer, b"b" * 1_000, 0.1))
    try:
        assert (await asyncio.wait_for(reader.readline(), 5)).startswith(b"HTTP/1.1 200")
        assert await closed_within(reader, 3.0)
    finally:
        feeder.cancel()
        writer.close()


@pytest.mark.parametrize(
    "head",
    [
        b"GET /api/rooms?x=" + b"a" * 9_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",  # URL over 8 KiB
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n",  # two Host headers
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 9_000 + b"\r\n\r\n",
        b"GET /healthz HTTP/1.1\r\nHost: x\r\n"
        + b"".join(b"X-%d: y\r\n" % n for n in range(100))
        + b"\r\n",  # too many headers
        b"GET /healthz HTTP/9.9\r\n\r\n",
        b"G<T /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
    ],
    ids=["long-url", "two-hosts", "long-header", "many-headers", "bad-version", "bad-method"],
)
async def test_bad_request_heads_get_400_and_one_warning_line(
    live: Live, caplog: pytest.LogCaptureFixture, head: bytes
) -> None:
    caplog.set_level(logging.INFO)
    status, answer = await get(live, head)
    assert 400 <= status < 500
    # aiohttp's own answer, as the API's: a fixed JSON error that quotes nothing of the
    # request, never sniffed, never cached.
    head_of, _, body = answer.partition(b"\r\n\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in
               (line.decode().partition(":") for line in head_of.split(b"\r\n")[1:])}  # fmt: skip
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["cache-control"] == "no-store"
    assert headers["content-type"].startswith("application/json")
    error = json.loads(body)["error"]
    assert error["code"] == "bad_request" and error["reason"]
    for sent in (b"aaaa", b"HTTP/9.9", b"Host", b"X-", b"healthz"):
        assert sent not in body, (sent, body)
    await asyncio.sleep(0.1)
    server = [r for r in caplog.records if r.name.startswith("aiohttp")]
    # Not HTTP at all, first on its connection (a scanner, TLS to a plain port): aiohttp
    # logs it at debug level only.
    lines = [] if head.startswith(b"G<T") else ["WARNING"]
    assert [r.levelname for r in server] == lines, [r.getMessage() for r in server]
    assert all(r.exc_info is None and "\n" not in r.getMessage() for r in server)
    status, _ = await get(live, CLOSE)
    assert status == 200
