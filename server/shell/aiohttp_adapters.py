"""The three places the server goes past aiohttp's public API, each with its fallback.

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
* :func:`plain_error_pages`: the answers aiohttp writes itself, before any of the
  app's code runs (a request head its parser refuses: a line or a header too
  long, a duplicate Host, a bad method or version; a handler's 500), carry its
  parser's message, which quotes the request's bytes back, and none of the
  app's headers. The server's :class:`web.Server` and the request handlers it
  makes are given subclasses (public classes, the one public method
  ``handle_error`` overridden) that answer a fixed JSON error with
  ``nosniff`` and ``no-store`` instead. If aiohttp builds them differently this
  does nothing; tests/server/test_http_hardening.py fails then.
"""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import Protocol, runtime_checkable

from aiohttp import web
from aiohttp.http_exceptions import BadHttpMethod, LineTooLong

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


# What a refused request head is told: the kind of fault, never its bytes.
_FAULTS: tuple[tuple[type[BaseException], str], ...] = (
    (LineTooLong, "a line of the request head is too long"),
    (BadHttpMethod, "not an HTTP request"),
)
ERROR_HEADERS = {"X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"}


def error_page(status: int, exc: BaseException | None) -> web.Response:
    """The answer to a request aiohttp refused or failed: a fixed JSON error, the
    API's headers, the connection closed after it."""
    if status >= 500:
        code, reason = "internal_error", "the server failed to handle that request"
    else:
        code = "bad_request"
        reason = next((r for kind, r in _FAULTS if isinstance(exc, kind)),
                      f"a malformed request head ({HTTPStatus(status).phrase})")  # fmt: skip
    page = web.Response(
        status=status,
        text=json.dumps({"error": {"code": code, "reason": reason}}),
        content_type="application/json",
        headers=ERROR_HEADERS,
    )
    page.force_close()
    return page


class _PlainErrorHandler(web.RequestHandler):
    __slots__ = ()

    def handle_error(
        self,
        request: web.BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        super().handle_error(request, status, exc, message)  # logs it; may raise
        return error_page(status, exc)


class _PlainErrorServer(web.Server):
    def __call__(self) -> web.RequestHandler:
        handler = super().__call__()
        if type(handler) is web.RequestHandler:
            handler.__class__ = _PlainErrorHandler
        return handler


def plain_error_pages(server: web.Server | None) -> None:
    """Make the answers aiohttp writes itself :func:`error_page`'s (see the module)."""
    if type(server) is web.Server:
        server.__class__ = _PlainErrorServer
