"""The cribsquares WebSocket protocol: pydantic models of every message.

See docs/protocol.md for the prose specification and a whole match walked
through message by message.
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
