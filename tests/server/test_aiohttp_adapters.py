"""The server's two uses of aiohttp past its public API (server/shell/aiohttp_adapters.py),
checked against the aiohttp installed: if it changes under them, these fail."""

from __future__ import annotations

import asyncio

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from server.shell import aiohttp_adapters


async def _seen_by_a_handler(compress: bool) -> dict[str, object]:
    seen: dict[str, object] = {}

    async def handler(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(heartbeat=30.0, compress=compress)
        await ws.prepare(request)
        seen["callback"] = getattr(request.protocol, aiohttp_adapters.HEARTBEAT_CALLBACK, None)
        seen["transport"] = aiohttp_adapters.raw_frame_transport(ws, request)
        aiohttp_adapters.drop_heartbeat_callback(request)
        seen["after"] = getattr(request.protocol, aiohttp_adapters.HEARTBEAT_CALLBACK, "gone")
        await ws.close()
        return ws

    app = web.Application()
    app.router.add_get("/ws", handler)
    async with TestClient(TestServer(app)) as client:
        ws = await client.ws_connect("/ws", compress=15 if compress else 0)
        await ws.receive()
        await ws.close()
    return seen


async def test_a_heartbeat_websocket_leaves_the_callback_the_adapter_clears() -> None:
    seen = await _seen_by_a_handler(compress=False)
    assert seen["callback"] is not None, "aiohttp no longer keeps the heartbeat callback there"
    assert seen["after"] is None


async def test_frames_go_to_the_transport_unless_aiohttp_must_write_them() -> None:
    plain = await _seen_by_a_handler(compress=False)
    assert isinstance(plain["transport"], aiohttp_adapters.FrameTransport)
    deflated = await _seen_by_a_handler(compress=True)
    assert deflated["transport"] is None  # permessage-deflate: aiohttp keeps the stream


def test_uvloops_transport_is_one_to_write_frames_to() -> None:
    uvloop = pytest.importorskip("uvloop")

    async def main() -> bool:
        server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        ok = isinstance(writer.transport, aiohttp_adapters.FrameTransport)
        writer.close()
        server.close()
        await server.wait_closed()
        return ok

    assert uvloop.run(main())
