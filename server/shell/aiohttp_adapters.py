"""The two places the server goes past aiohttp's public API, each with its fallback.

* :func:`raw_frame_transport` and :func:`text_frame`: without compression the
  server writes its text frames to the connection's transport itself, all of a
  session's pending frames in one system call, instead of one ``send_str`` (and
  one write) per message. The fallback, whenever aiohttp must write the frames
  (permessage-deflate keeps a stream; a transport that is not a write
  transport), is aiohttp's own writer. tests/server/test_frames.py checks the
  frames are byte for byte aiohttp's.
* :func:`drop_heartbeat_callback`: aiohttp's request handler keeps a closed
  WebSocket's heartbeat callback (a private attribute), a reference cycle that
  only a full garbage collection frees. If a later aiohttp has no such attribute
  this does nothing; tests/server/test_aiohttp_adapters.py fails then, so that
  the adapter is looked at again, and the no-cycle test shows whether it matters.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from aiohttp import web

# The private attribute of aiohttp's RequestHandler this module clears (3.9 to 3.13).
HEARTBEAT_CALLBACK = "_data_received_cb"


def text_frame(text: str) -> bytes:
    """A server's WebSocket text frame: unmasked, uncompressed (RFC 6455 section 5.2)."""
    payload = text.encode("utf-8")
    n = len(payload)
    if n < 126:
        return bytes((0x81, n)) + payload
    if n < 65_536:
        return bytes((0x81, 126)) + n.to_bytes(2, "big") + payload
    return bytes((0x81, 127)) + n.to_bytes(8, "big") + payload


@runtime_checkable
class FrameTransport(Protocol):
    """What the server needs of a transport to write frames to it (asyncio's and uvloop's)."""

    def write(self, data: bytes) -> None: ...

    def is_closing(self) -> bool: ...

    def get_write_buffer_size(self) -> int: ...


def raw_frame_transport(ws: web.WebSocketResponse, request: web.Request) -> FrameTransport | None:
    """The transport to write :func:`text_frame` frames to, or None: let aiohttp write."""
    transport = request.transport
    if ws.compress or not isinstance(transport, FrameTransport):
        return None
    return transport


def drop_heartbeat_callback(request: web.Request) -> None:
    """Break the reference cycle aiohttp leaves behind a closed WebSocket with a heartbeat.

    The connection's protocol keeps the socket's heartbeat callback after the
    socket closes (request -> protocol -> callback -> socket -> request), so
    without this every closed connection waits for a full garbage collection
    to be freed, and a full collection pauses every player (docs/benchmarks.md,
    "The paced tail"). tests/server/test_limits_security.py checks no cycle is left.
    """
    protocol = request.protocol
    if getattr(protocol, HEARTBEAT_CALLBACK, None) is not None:
        setattr(protocol, HEARTBEAT_CALLBACK, None)
