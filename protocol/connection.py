"""A connection's own messages: signing in, keeping alive, who is online, errors.

``hello`` is the first message on every connection and ``welcome`` its answer
(docs/protocol.md, *Identity*); ``ping``/``pong`` keep it alive; ``list_online``
lists who is signed in; ``error`` answers any request refused, with a stable
code (docs/protocol.md, *Errors*).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from protocol.fields import (
    PROTOCOL_VERSION,
    Message,
    Name,
    NodeName,
    PlayerInfo,
    Ref,
    Request,
    RoomId,
)
from protocol.tournaments import FormatOffer


class Hello(Request):
    """First message on every connection: protocol version and identity.

    With ``token``: sign in as the player that token belongs to (reconnect).
    Without: register a new player called ``name`` and receive a token;
    ``guest`` players may only play casual rooms and are not listed. ``bot``
    declares a program playing on its own: it is labelled a bot
    (``PlayerInfo.bot``) wherever it appears. (Added in protocol 1, optional.)
    ``follow_node``: the client reconnects where a ``node_hint`` says (optional).
    """

    type: Literal["hello"] = "hello"
    protocol: int
    name: Name | None = None
    token: Annotated[str | None, Field(default=None, max_length=128)] = None
    guest: bool = False
    bot: bool = False
    client: Annotated[str | None, Field(default=None, max_length=64)] = None
    follow_node: bool = False
    ref: Ref = None


class ListOnline(Request):
    """Who is signed in now, by name: ``limit`` of them from ``offset`` on."""

    type: Literal["list_online"] = "list_online"
    offset: Annotated[int, Field(ge=0, le=100_000)] = 0
    limit: Annotated[int, Field(ge=1, le=100)] = 50
    ref: Ref = None


class Ping(Request):
    type: Literal["ping"] = "ping"
    ref: Ref = None


class Welcome(Message):
    type: Literal["welcome"] = "welcome"
    protocol: int = PROTOCOL_VERSION
    server: str
    player: PlayerInfo
    token: str | None = None  # only when newly issued: keep it secret
    # The tournament formats it hosts, for a form to offer (docs/protocol.md, welcome).
    formats: list[FormatOffer] = Field(default_factory=list)
    ref: Ref = None


class ErrorMessage(Message):
    type: Literal["error"] = "error"
    code: str
    reason: str
    room_id: str | None = None
    ref: Ref = None


class Pong(Message):
    type: Literal["pong"] = "pong"
    ref: Ref = None


class Online(Message):
    """The reply to ``list_online``: players signed in now, ordered by name
    (case-insensitive, then id); ``total`` counts them all."""

    type: Literal["online"] = "online"
    players: list[PlayerInfo]
    offset: int = 0
    total: int
    ref: Ref = None


class NodeHint(Message):
    """The room ``room_id``, in which the player has a seat, is run by the
    server node ``node``, not by the one this connection is on: reconnecting
    with ``?node=NODE`` in the WebSocket URL lets the public address route the
    connection straight to it (docs/protocol.md, *node_hint*). Sent only to a
    connection whose ``hello`` said ``follow_node``. Never a reply: no ``ref``.
    """

    type: Literal["node_hint"] = "node_hint"
    node: NodeName
    room_id: RoomId


# This area's client messages (signing in, pings, who is online:
# answered where the connection is). protocol.wire assembles the
# client's union from the areas' unions, and the server routes by them.
ConnectionRequest = Hello | Ping | ListOnline
# This area's server messages: protocol.wire assembles the server's union the same way.
ConnectionNews = Welcome | ErrorMessage | Pong | Online | NodeHint
