"""The wire: one discriminated union per direction, the one parse of a client's frame,
a server's frames written and read, and the JSON Schema.

Messages are JSON text objects with a ``type`` field. A frame holds one
message; in protocol 2 a server's frame may hold a JSON array of several
(:func:`batch_frame`, :func:`frame_messages`). :data:`ClientMessage` and
:data:`ServerMessage` are discriminated unions on ``type`` of the messages of
every area (:mod:`protocol.connection`, :mod:`protocol.rooms`,
:mod:`protocol.deals`, :mod:`protocol.head_to_head`,
:mod:`protocol.tournaments`, :mod:`protocol.daily`); :func:`parse_client` is
the one place untrusted client frames become typed messages, and
:class:`ProtocolError` what it raises for any other frame.

Conventions (docs/protocol.md is the prose version):

* cards are canonical text (``"5H"``, ``"TD"``), cells are names ``"a1"``..``"d4"``;
* times are integers in milliseconds; ``deadline_ms`` values are durations
  remaining at the moment the message was sent, not wall-clock times;
* a client may put a ``ref`` string on any request; replies and errors caused by
  that request echo it, so a client can match them (a ref that cannot be echoed,
  see :func:`echoable_ref`, is answered with ``ref: null``);
* client messages are validated strictly (:mod:`protocol.fields`).

This module must never import from ``server/`` or do I/O.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, get_args

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from protocol.connection import ConnectionNews, ConnectionRequest
from protocol.daily import DailyNews, DailyRequest
from protocol.deals import DealNews, DealRequest
from protocol.fields import BATCHING_PROTOCOL, PROTOCOL_VERSION
from protocol.head_to_head import HeadToHeadNews, HeadToHeadRequest, RatingsRequest
from protocol.rooms import InRoomRequest, JoinRoom, RoomNews, RoomRequest
from protocol.tournaments import TournamentNews, TournamentRequest

# Every area's client messages (connection, rooms, deals, head-to-head, ratings,
# tournaments, the daily deal), each area's union kept by its own module.
ClientMessage = Annotated[
    ConnectionRequest | RoomRequest | DealRequest | HeadToHeadRequest | RatingsRequest
    | TournamentRequest | DailyRequest,
    Field(discriminator="type"),
]  # fmt: skip

# Every client message's ``type``, in the union's order: read from the union, never kept apart.
CLIENT_TYPES: tuple[str, ...] = tuple(
    str(kind.model_fields["type"].default) for kind in get_args(get_args(ClientMessage)[0])
)


# Every area's server messages, each area's union kept by its own module: a new
# message is added to its area's, and nowhere here.
ServerMessage = Annotated[
    ConnectionNews | RoomNews | DealNews | HeadToHeadNews | TournamentNews | DailyNews,
    Field(discriminator="type"),
]  # fmt: skip


def addressed_room(message: ClientMessage) -> str | None:
    """The room a client message names (a room's own commands, a placement, a join by
    id), read from the schema's areas; None for any other."""
    if isinstance(message, InRoomRequest | DealRequest | JoinRoom):
        return message.room_id
    return None


CLIENT_ADAPTER: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
SERVER_ADAPTER: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)


class ProtocolError(ValueError):
    """A frame that is not a valid client message; ``code`` goes on the wire."""

    def __init__(self, code: str, reason: str, ref: str | None = None) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.ref = ref


MAX_REF = 64


def echoable_ref(value: object) -> str | None:
    """``value`` if an error may echo it as its ``ref``, else None.

    A ``ref`` is echoed when it is what the schema allows: a string of at most
    64 characters of valid Unicode. Anything else (a number, a longer string, a
    lone surrogate such as ``"\\ud800"``) cannot be sent back: the error has
    ``ref: null`` and its reason says why (:func:`ref_trouble`).
    """
    return value if ref_trouble(value) is None else None  # type: ignore[return-value]


def ref_trouble(value: object) -> str | None:
    """Why ``value`` cannot be echoed as a ``ref`` (None: it can, or there is none)."""
    if value is None:
        return None
    if not isinstance(value, str):
        return f"ref is a JSON {_json_kind(value)}, not a string"
    if len(value) > MAX_REF:
        return f"ref is longer than {MAX_REF} characters"
    if not value.isascii() and not _valid_unicode(value):
        return "ref holds a lone surrogate"
    return None


def readable(text: str) -> str:
    """``text`` made safe to send: a lone surrogate becomes its escape ``\\ud800``."""
    if text.isascii() or _valid_unicode(text):
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _valid_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _json_kind(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def parse_client(frame: str | bytes, protocol: int = 1) -> ClientMessage:
    """Parse one untrusted frame; raise :class:`ProtocolError` with a stable code.

    Codes: ``bad_json`` (not JSON, not an object, a binary frame that is not
    UTF-8, a byte-order mark, ``NaN`` or ``Infinity``), ``batch_not_allowed``
    (an array, from a client that said ``protocol`` 2: only a server's frames
    batch; in protocol 1 an array is ``bad_json``, as ever), ``unknown_type``
    (missing or unknown ``type``), ``bad_message`` (a known type with missing,
    extra or mistyped fields). The error's ``ref`` is the frame's when it can
    be echoed (:func:`echoable_ref`), else None.
    """
    # Fast path: a frame of printable ASCII without escapes (every frame a client
    # sends in play) is parsed and validated in one call of pydantic's JSON
    # validator. Whatever it refuses goes the slow way below, which names the
    # error; what it accepts is what the slow way gives (tests/server/test_fastpath.py).
    if type(frame) is str and _PLAIN_FRAME.fullmatch(frame) is not None:
        try:
            return CLIENT_ADAPTER.validate_json(frame)
        except ValidationError:
            pass
    return _parse_client_slowly(frame, protocol)


# Printable ASCII without backslash: no escape, control character or surrogate.
_PLAIN_FRAME = re.compile(r"[ -\[\]-~]*")


def batch_frame(texts: list[str]) -> str:
    """The text of one protocol-2 frame holding ``texts``, each one message's JSON, in order:
    the message itself when there is one, else the JSON array of them."""
    if len(texts) == 1:
        return texts[0]
    return "[" + ",".join(texts) + "]"


def frame_messages(data: Any) -> list[Any]:
    """The messages of a parsed server frame, in order: a protocol-2 frame may be an
    array of them, any other frame is one (what a client does with every frame)."""
    return data if isinstance(data, list) else [data]


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not a JSON number")


def _parse_client_slowly(frame: str | bytes, protocol: int = 1) -> ClientMessage:
    import json

    if isinstance(frame, bytes):
        try:
            frame = frame.decode("utf-8")  # strictly: no UTF-16 or UTF-32, no surrogates
        except UnicodeDecodeError as exc:
            raise ProtocolError("bad_json", f"a binary frame must be UTF-8 text: {exc}") from None
    if frame.startswith("\ufeff"):
        raise ProtocolError("bad_json", "a frame must not begin with a byte-order mark")
    try:
        data: Any = json.loads(frame, parse_constant=_not_json)
    except ValueError as exc:
        raise ProtocolError("bad_json", f"frame is not valid JSON: {exc}") from None
    except RecursionError:  # "[[[[…": the json module gives up on deep nesting this way
        raise ProtocolError("bad_json", "frame is not valid JSON: nested too deeply") from None
    if isinstance(data, list) and protocol >= BATCHING_PROTOCOL:
        raise ProtocolError(
            "batch_not_allowed",
            "a client's frame holds one message, a JSON object: only the server's frames"
            " hold arrays of messages (protocol 2)",
        )
    if not isinstance(data, dict):
        raise ProtocolError("bad_json", "a frame must be a JSON object")
    raw_ref = data.get("ref")
    ref = echoable_ref(raw_ref)
    trouble = ref_trouble(raw_ref)
    note = f" ({trouble}: not echoed)" if trouble is not None else ""
    kind = data.get("type")
    if kind not in CLIENT_TYPES:
        raise ProtocolError(
            "unknown_type",
            readable(f"unknown message type {_shown(kind)}; known: {', '.join(CLIENT_TYPES)}")
            + note,
            ref,
        )
    if "\\u" in frame:  # only an escape can make a lone surrogate
        where = _lone_surrogate(data)
        if where is not None:
            raise ProtocolError(
                "bad_message",
                f"{kind}: {where}: a lone surrogate escape is not text" + note,
                ref,
            )
    try:
        return CLIENT_ADAPTER.validate_python(data)
    except ValidationError as exc:
        first = exc.errors(include_url=False, include_input=False, include_context=False)[0]
        where = ".".join(_shown(p) for p in first["loc"][1:]) or kind
        raise ProtocolError("bad_message", readable(f"{kind}: {where}: {first['msg']}") + note,
                            ref) from None  # fmt: skip


def _lone_surrogate(data: dict[str, Any]) -> str | None:
    """Where a key or string of ``data`` holds a lone surrogate, or None."""
    stack: list[tuple[str, object]] = [("", data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            if not value.isascii() and not _valid_unicode(value):
                return path or "frame"
        elif isinstance(value, dict):
            for key, item in value.items():
                if not key.isascii() and not _valid_unicode(key):
                    return f"{path}: a key" if path else "a key"
                stack.append((f"{path}.{_shown(key)}" if path else _shown(key), item))
        elif isinstance(value, list):
            stack.extend((f"{path}[{i}]", item) for i, item in enumerate(value))
    return None


def _shown(part: object) -> str:
    """A key or value of the frame as a reason shows it: plain names as they are,
    anything else quoted and cut short."""
    if isinstance(part, str) and _NAME.fullmatch(part):
        return part
    text = repr(part)
    return text if len(text) <= 40 else text[:37] + "..."


_NAME = re.compile(r"[A-Za-z0-9_]{1,40}")


def dump_server(message: BaseModel) -> str:
    """Serialize a server message as a compact JSON text frame."""
    return message.model_dump_json(exclude_none=False)


def json_schema() -> dict[str, Any]:
    """JSON Schema of every message, both directions (``cribsquares protocol schema``)."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "cribsquares protocol",
        "version": PROTOCOL_VERSION,
        "client_to_server": CLIENT_ADAPTER.json_schema(),
        "server_to_client": SERVER_ADAPTER.json_schema(),
    }
