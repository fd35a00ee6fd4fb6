"""Rooms: the public list, opening, joining and leaving, readiness, bots, rematches,
and the room as its members see it, down to a full snapshot (``room_state``).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import Field

from protocol.deals import MatchResult, Progress, SeriesInfo, YourBoard
from protocol.fields import (
    MAX_CONTRIBUTION,
    PAGE_DEFAULT,
    BestOf,
    CardClock,
    Choice,
    Contribution,
    Cursor,
    DealClock,
    Message,
    Pace,
    PageLimit,
    PlayerInfo,
    Ref,
    Request,
    RoomId,
    Title,
    Visibility,
)


class RoomStatus(StrEnum):
    WAITING = "waiting"
    PLAYING = "playing"
    FINISHED = "finished"


class RoomOrigin(StrEnum):
    """How a room came to be."""

    ROOM = "room"  # create_room
    QUICKPLAY = "quickplay"
    CHALLENGE = "challenge"
    TOURNAMENT = "tournament"  # a tournament's table
    ARENA = "arena"  # quick play's rated pool of bot programs
    DAILY = "daily"  # an attempt at the daily deal (docs/daily.md)


class ListRooms(Request):
    """A page of the public rooms waiting or playing, oldest first: ``limit`` of
    them, after the page whose ``next`` cursor is ``after`` (None: the first page)."""

    type: Literal["list_rooms"] = "list_rooms"
    limit: PageLimit = PAGE_DEFAULT
    after: Cursor = None
    ref: Ref = None


class CreateRoom(Request):
    """Open a room. ``deals`` > 1 makes it a best-of-N series on as many deals;
    ``rated`` (two seats, no guests, no bots) moves the players' ratings."""

    quota = "room"

    type: Literal["create_room"] = "create_room"
    name: Title
    visibility: Annotated[Visibility, Choice] = Visibility.PUBLIC
    seats: Annotated[int, Field(ge=1, le=8)] = 2
    pace: Annotated[Pace, Choice] = Pace.LOCKSTEP
    card_clock_ms: CardClock = 30_000
    deal_clock_ms: DealClock = 300_000
    contribution: Contribution = ""
    deals: BestOf = 1
    rated: bool = False
    ref: Ref = None


class JoinRoom(Request):
    """Join by ``room_id`` (public rooms) or ``invite_code`` (private rooms).

    ``contribution`` is this player's share of the deal's seed (any text); a
    client that wants to check the deal should send fresh random text.
    """

    quota = "join"

    type: Literal["join_room"] = "join_room"
    room_id: RoomId | None = None
    invite_code: Annotated[str | None, Field(default=None, max_length=32)] = None
    spectate: bool = False
    contribution: Annotated[str, Field(max_length=MAX_CONTRIBUTION)] = ""
    ref: Ref = None


class LeaveRoom(Request):
    quota = "join"

    type: Literal["leave_room"] = "leave_room"
    room_id: RoomId
    ref: Ref = None


class Ready(Request):
    type: Literal["ready"] = "ready"
    room_id: RoomId
    ready: bool = True
    ref: Ref = None


class StartMatch(Request):
    """The room's creator starts the match without waiting for everyone ready."""

    type: Literal["start"] = "start"
    room_id: RoomId
    ref: Ref = None


class AddBot(Request):
    """The room's creator fills an empty seat with a server-side bot."""

    type: Literal["add_bot"] = "add_bot"
    room_id: RoomId
    strategy: Annotated[str, Field(min_length=1, max_length=32)] = "expert"
    ref: Ref = None


class Resync(Request):
    """Ask for a full ``room_state`` snapshot of a room one belongs to."""

    type: Literal["resync"] = "resync"
    room_id: RoomId
    ref: Ref = None


class Rematch(Request):
    """After a series: offer a rematch, or accept the one on offer (``want``
    false withdraws). When every seated player wants it, a new series starts in
    the same room on a fresh deal; ``contribution`` is this player's share of it."""

    type: Literal["rematch"] = "rematch"
    room_id: RoomId
    want: bool = True
    contribution: Contribution = ""
    ref: Ref = None


class SeatInfo(Message):
    seat: int
    player: PlayerInfo
    ready: bool = False
    connected: bool = True


class RoomSummary(Message):
    """A room as the lobby list shows it (public rooms only)."""

    id: str
    name: str
    visibility: Visibility
    pace: Pace
    seats: int
    taken: int
    status: RoomStatus
    card_clock_ms: int
    deal_clock_ms: int
    creator: PlayerInfo


class RoomInfo(Message):
    """A room as its members see it."""

    id: str
    name: str
    visibility: Visibility
    invite_code: str | None = None  # only sent to members
    pace: Pace
    seats: int
    status: RoomStatus
    card_clock_ms: int
    deal_clock_ms: int
    creator: PlayerInfo
    players: list[SeatInfo]
    spectators: int = 0
    server_commitment: str  # SHA-256 of the server's secret share of the seed
    deals: int = 1  # best of
    rated: bool = False
    series: SeriesInfo | None = None  # once the first deal has started
    # ids of the players who want a rematch (a pydantic default: copied for each model)
    rematch: list[str] = []  # noqa: RUF012
    origin: RoomOrigin = RoomOrigin.ROOM
    # A rematch may be offered now (the series is over, and nobody who would play
    # it has left; never at a tournament's table or a daily attempt).
    can_rematch: bool = False


class Rooms(Message):
    """A page of public rooms; ``next``: the cursor of the next page (None: the last);
    ``total``: how many rooms are listed in all."""

    type: Literal["rooms"] = "rooms"
    rooms: list[RoomSummary]
    next: str | None = None
    total: int | None = None
    ref: Ref = None


class RoomUpdate(Message):
    """The room changed (someone joined, left, readied, connected...)."""

    type: Literal["room"] = "room"
    room: RoomInfo
    ref: Ref = None


class Left(Message):
    type: Literal["left"] = "left"
    room_id: str
    ref: Ref = None
    # Leaving a series under way forfeits it: the series as it stands once the leave is
    # decided (its standings held back, as in ``room``, where its result may not be
    # seen yet). None otherwise. (Added in protocol 2, optional.)
    series: SeriesInfo | None = None


class RoomState(Message):
    """A full snapshot for one recipient: sent on join, reconnect and ``resync``."""

    type: Literal["room_state"] = "room_state"
    room: RoomInfo
    match_id: str | None = None
    seed_commitment: str | None = None
    contributions: list[str] = []  # noqa: RUF012 (a pydantic default: copied for each model)
    you: YourBoard | None = None  # None for spectators and before the match
    progress: Progress | None = None
    result: MatchResult | None = None
    ref: Ref = None


# The commands for a room one is in: each names it (``room_id``).
InRoomRequest = LeaveRoom | Ready | StartMatch | AddBot | Rematch | Resync

# This area's client messages (rooms: run by the room's owner, a list
# by any node). protocol.wire assembles the client's union from the areas'
# unions, and the server routes by them.
RoomRequest = ListRooms | CreateRoom | JoinRoom | InRoomRequest
# This area's server messages: protocol.wire assembles the server's union the same way.
RoomNews = Rooms | RoomUpdate | Left | RoomState
