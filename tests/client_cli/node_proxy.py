"""A stand-in for a server of several nodes, on loopback: a WebSocket proxy in
front of a real single-process server that plays the cluster's part in the
``node_hint`` contract (docs/protocol.md, *node_hint*).

Every connection is passed on to the real server, frame for frame both ways,
whatever ``node`` its URL names (as a public address that routes by it would
send it to that node, and this one server is every node). To a connection whose
``hello`` said ``"follow_node": true`` the proxy sends a ``node_hint`` when the
player takes a seat (the first ``room_state`` that seats it), or, in the
``on_place`` mode, when the client sends a ``place``: the hint goes first and the
placement reaches the server only once the test lets it (``release``), so the
hint comes while the placement is unanswered. It records what each connection asked for, said and
heard, and how the client closed it.

``refuse_follow_node`` makes it a server that predates the field: a ``hello``
with it is answered as such a server answers (``bad_message`` naming the field),
and not passed on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import WSMsgType, web

from protocol.wire import frame_messages

# What a server that predates ``hello.follow_node`` answers a hello that has it.
OLD_SERVER_REFUSAL = {
    "type": "error",
    "code": "bad_message",
    "reason": "hello: follow_node: Extra inputs are not permitted",
    "room_id": None,
    "ref": None,
}


@dataclass
class Connection:
    query: dict[str, str]  # the WebSocket URL's query, as asked for
    said: list[dict[str, Any]] = field(default_factory=list)  # client -> server
    heard: list[dict[str, Any]] = field(default_factory=list)  # server -> client
    hinted: list[str] = field(default_factory=list)  # the nodes this connection was told
    close_code: int | None = None  # the client's close code, once closed

    def hellos(self) -> list[dict[str, Any]]:
        return [m for m in self.said if m.get("type") == "hello"]


@dataclass
class NodeProxy:
    upstream: str  # the real server's ws:// URL
    # The node a hint names, from the connection's index and its URL's node.
    node_for: Callable[[int, str | None], str] = lambda index, node: "n1"
    on_place: bool = False  # hint when a place is sent, not when a seat is taken
    # In that mode, the place goes on to the server once this is set (or after 10 s).
    release: asyncio.Event = field(default_factory=asyncio.Event)
    refuse_follow_node: bool = False
    connections: list[Connection] = field(default_factory=list)
    events: list[str] = field(default_factory=list)  # "c0 said place t2", "c0 closed 1000"...
    url: str = ""

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        index = len(self.connections)
        conn = Connection(dict(request.query))
        self.connections.append(conn)
        self.events.append(f"c{index} opened node={conn.query.get('node')}")
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        follows = False
        hinted = False
        me: list[str] = []  # the player signed in on this connection
        async with (
            aiohttp.ClientSession() as http,
            http.ws_connect(self.upstream, autoping=True) as up,
        ):

            async def hint(room_id: str) -> None:
                nonlocal hinted
                if not follows or hinted:
                    return
                hinted = True
                node = self.node_for(index, conn.query.get("node"))
                conn.hinted.append(node)
                self.events.append(f"c{index} hinted {node}")
                told = {"type": "node_hint", "node": node, "room_id": room_id}
                await ws.send_str(json.dumps(told))

            async def downstream() -> None:
                async for frame in up:
                    if frame.type != WSMsgType.TEXT:
                        break
                    await ws.send_str(frame.data)
                    for message in frame_messages(json.loads(frame.data)):
                        conn.heard.append(message)
                        self.events.append(f"c{index} heard {_short(message)}")
                        if message.get("type") == "welcome":
                            me.append(message["player"]["id"])
                        if message.get("type") == "room_state" and not self.on_place:
                            room = message["room"]
                            if any(s["player"]["id"] in me for s in room["players"]):
                                await hint(room["id"])  # the player has a seat in it
                await ws.close()  # the server closed: so does the proxy, to the client

            pump = asyncio.ensure_future(downstream())
            try:
                async for frame in ws:
                    if frame.type != WSMsgType.TEXT:
                        break
                    message = json.loads(frame.data)
                    conn.said.append(message)
                    self.events.append(f"c{index} said {_short(message)}")
                    if message.get("type") == "hello":
                        if self.refuse_follow_node and "follow_node" in message:
                            await ws.send_str(json.dumps(OLD_SERVER_REFUSAL))
                            continue
                        follows = message.get("follow_node") is True
                    if message.get("type") == "place" and self.on_place and not hinted:
                        await hint(message["room_id"])
                        with contextlib.suppress(TimeoutError):
                            await asyncio.wait_for(self.release.wait(), 10)
                    await up.send_str(frame.data)
            finally:
                conn.close_code = ws.close_code
                self.events.append(f"c{index} closed {ws.close_code}")
                pump.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await pump
        return ws


def _short(message: dict[str, Any]) -> str:
    kind = str(message.get("type"))
    if kind in ("place", "placed"):
        return f"{kind} t{message.get('turn')} ref={message.get('ref')}"
    return f"{kind} ref={message.get('ref')}" if "ref" in message else kind


@contextlib.asynccontextmanager
async def node_proxy(upstream: str, **options: Any) -> AsyncIterator[NodeProxy]:
    """The proxy on a free loopback port in front of ``upstream``."""
    proxy = NodeProxy(upstream, **options)
    app = web.Application()
    app.router.add_get("/ws", proxy.handle)
    runner = web.AppRunner(app, handle_signals=False, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    proxy.url = f"ws://127.0.0.1:{runner.addresses[0][1]}/ws"
    try:
        yield proxy
    finally:
        await runner.cleanup()
