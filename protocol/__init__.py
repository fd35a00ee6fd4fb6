"""The cribsquares WebSocket protocol: pydantic models of every message.

One module an area: :mod:`protocol.connection`, :mod:`protocol.rooms`,
:mod:`protocol.deals`, :mod:`protocol.head_to_head`, :mod:`protocol.tournaments`
and :mod:`protocol.daily`, built from :mod:`protocol.fields`; the union of each
direction and the one parse of a client's frame are :mod:`protocol.wire`'s, and
this package's names below. See docs/protocol.md for the prose specification
and a whole match walked through message by message.
"""

from protocol.fields import PROTOCOL_VERSION, PROTOCOLS
from protocol.wire import (
    CLIENT_ADAPTER,
    SERVER_ADAPTER,
    ClientMessage,
    ProtocolError,
    ServerMessage,
    dump_server,
    json_schema,
    parse_client,
)

__all__ = [
    "CLIENT_ADAPTER",
    "PROTOCOLS",
    "PROTOCOL_VERSION",
    "SERVER_ADAPTER",
    "ClientMessage",
    "ProtocolError",
    "ServerMessage",
    "dump_server",
    "json_schema",
    "parse_client",
]
