"""The WebSocket handler ``/ws``: it only parses, calls and sends.

Each frame is size-checked, rate-limited and parsed once
(:func:`protocol.parse_client`) by the hub; the connection goes on after
every refusal. The URL's one query parameter, ``node`` (the node a
``node_hint`` named, docs/protocol.md), is parsed before the upgrade:
a value that is not a node id is refused with HTTP 400 ``bad_node``.
"""

from __future__ import annotations

import asyncio
import json

from aiohttp import WSMsgType, web
from multidict import MultiMapping

from server.config import NODE_ID
from server.limits import TokenBucket, quota_key
from server.shell import aiohttp_adapters, clock
from server.shell.keys import HUB
from server.shell.origins import client_address, local_port, origin_allowed, own_origins
from server.shell.session import Session


async def websocket(request: web.Request) -> web.WebSocketResponse:
    hub = request.app[HUB]
    config = hub.config
    origin = request.headers.get("Origin")
    if origin is not None and not origin_allowed(
        origin, own_origins(config, local_port(request.transport, config.port))
    ):
        raise web.HTTPForbidden(text=f"WebSocket connections from {origin} are not allowed\n")
    asked = asked_node(request.query)
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
            TokenBucket(config.rate_per_second, config.rate_burst, clock.now_ms()),
            config.max_unsent_bytes,
            # With permessage-deflate aiohttp must write the frames: it keeps the stream.
            transport=aiohttp_adapters.raw_frame_transport(ws, request),
            on_pending=hub.schedule_flush,
            address=quota_key(address),
            socket=request.transport,
            on_too_slow=hub.drop,
            asked_node=asked,
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


BAD_NODE = "bad_node"


def asked_node(query: MultiMapping[str]) -> str | None:
    """The node the URL asked for (``?node=ID``), None if it names none; HTTP 400
    ``bad_node`` if it is not a node id (1 to 32 letters, digits, ``-`` or ``_``)
    or is given more than once."""
    values = query.getall("node", [])
    if not values:
        return None
    if len(values) == 1 and NODE_ID.fullmatch(values[0]):
        return values[0]
    reason = (
        "node: given more than once"
        if len(values) > 1
        else f"node: 1 to 32 letters, digits, '-' or '_', not {values[0][:40]!r}"
    )
    raise web.HTTPBadRequest(
        text=json.dumps({"error": {"code": BAD_NODE, "reason": reason}}),
        content_type="application/json",
    )
