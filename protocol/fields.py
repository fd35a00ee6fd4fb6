"""What every message of the protocol is built from.

The protocol's versions; the two base models (:class:`Message`, every message
and shape: frozen, no field it does not name; :class:`Request`, a client's
message: strict as well, since it is untrusted); the field types the messages
share (names, titles, room ids, cells, refs, clocks, contributions, pages, best
of); the enumerations of more than one area (:class:`Pace`,
:class:`Visibility`); and :class:`PlayerInfo`, how every message names a player.

Client messages are validated strictly: a field has exactly its schema's JSON
type (``"2"`` is not 2, ``2.0`` is not 2, ``true`` is not 1); only the
enumerations take their string values (:data:`Choice`).

This module must never import from ``server/`` or do I/O.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, Strict
from pydantic_core import PydanticCustomError

from protocol import names
from protocol.names import MAX_NAME, MAX_TITLE

PROTOCOL_VERSION = 2  # the newest version; a server speaks every one of PROTOCOLS
PROTOCOLS = (1, 2)
BATCHING_PROTOCOL = 2  # from this version on, a server's frame may be an array of messages
MAX_CONTRIBUTION = 64


def _checked(check: Any) -> AfterValidator:
    """A validator from a :mod:`protocol.names` check: its reason is the error's text."""

    def validate(text: str) -> str:
        try:
            return str(check(text))
        except names.BadName as exc:
            raise PydanticCustomError("bad_name", str(exc)) from None

    return AfterValidator(validate)


# A player name (docs/protocol.md, Identity): its stored, PRECIS form.
Name = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_NAME,
        description="a player name: PRECIS (RFC 8265), one script; docs/protocol.md, Names",
    ),
    _checked(names.check_name),
]
# A room or tournament name: printable text, trimmed.
Title = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_TITLE,
        description="printable text, PRECIS Nickname (RFC 8266); docs/protocol.md",
    ),
    _checked(names.check_title),
]
RoomId = Annotated[str, Field(min_length=1, max_length=32)]
# A server node's id (``--node-id``): 1 to 32 letters, digits, "-" or "_".
NODE_ID_PATTERN = r"[A-Za-z0-9_-]{1,32}"
NodeName = Annotated[str, Field(pattern=f"^{NODE_ID_PATTERN}$")]
CellName = Annotated[str, Field(min_length=2, max_length=2)]
Ref = Annotated[str | None, Field(default=None, max_length=64)]


class Pace(StrEnum):
    LOCKSTEP = "lockstep"
    RACE = "race"


class Visibility(StrEnum):
    PUBLIC = "public"
    PRIVATE = "private"


class Message(BaseModel):
    """Every message and every shape in one: frozen, with no field it does not name."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Request(Message):
    """A client message: untrusted, so strict. Every field must have its JSON type
    exactly; no string is read as a number or a boolean, no float as an int."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    # Which of the server's quotas the message spends (docs/operations.md, Limits):
    # "room", "tournament", "join"; None: none beyond the connection's rate.
    quota: ClassVar[str | None] = None


# Enumerations are given by their values, which are JSON strings: these take them.
Choice = Strict(False)


PAGE_DEFAULT = 50  # listings: rooms (or tournaments) per page unless asked
PAGE_MAX = 100
PageLimit = Annotated[int, Field(ge=1, le=PAGE_MAX)]
Cursor = Annotated[str | None, Field(default=None, max_length=32)]


CardClock = Annotated[int, Field(ge=1_000, le=600_000)]
DealClock = Annotated[int, Field(ge=10_000, le=3_600_000)]
Contribution = Annotated[str, Field(max_length=MAX_CONTRIBUTION)]


def _exactly_an_int(value: Any) -> Any:
    # A Literal of ints takes true for 1 and 3.0 for 3 even in strict mode.
    if type(value) is not int:
        raise PydanticCustomError("int_type", "Input should be a valid integer")
    return value


BestOf = Annotated[Literal[1, 3, 5], BeforeValidator(_exactly_an_int)]


class PlayerInfo(Message):
    id: str
    name: str
    bot: bool = False
    guest: bool = False
