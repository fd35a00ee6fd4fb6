"""Every WebSocket message of the cribsquares protocol, both directions.

Messages are JSON text objects with a ``type`` field. A frame holds one
message; in protocol 2 a server's frame may hold a JSON array of several
(:func:`batch_frame`, :func:`frame_messages`). :data:`ClientMessage` and
:data:`ServerMessage` are discriminated unions on ``type``; :func:`parse_client`
is the one place untrusted client frames become typed messages.

Conventions (docs/protocol.md is the prose version):

* cards are canonical text (``"5H"``, ``"TD"``), cells are names ``"a1"``..``"d4"``;
* times are integers in milliseconds; ``deadline_ms`` values are durations
  remaining at the moment the message was sent, not wall-clock times;
* a client may put a ``ref`` string on any request; replies and errors caused by
  that request echo it, so a client can match them (a ref that cannot be echoed,
  see :func:`echoable_ref`, is answered with ``ref: null``);
* client messages are validated strictly: a field has exactly its schema's JSON
  type (``"2"`` is not 2, ``2.0`` is not 2, ``true`` is not 1); only the
  enumerations take their string values.

This module must never import from ``server/`` or do I/O.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
    TypeAdapter,
    ValidationError,
)
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
CellName = Annotated[str, Field(min_length=2, max_length=2)]
Ref = Annotated[str | None, Field(default=None, max_length=64)]


class Pace(StrEnum):
    LOCKSTEP = "lockstep"
    RACE = "race"


class Visibility(StrEnum):
    PUBLIC = "public"
    PRIVATE = "private"


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


class EntrantStatus(StrEnum):
    """A tournament entrant's standing in the draw."""

    ACTIVE = "active"
    WITHDRAWN = "withdrawn"
    REMOVED = "removed"
    ELIMINATED = "eliminated"


class TableStatus(StrEnum):
    """A tournament table: being played, a bye (no opponent), or over."""

    PLAYING = "playing"
    BYE = "bye"
    FINISHED = "finished"


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# ---------------------------------------------------------------------------
# Client -> server


class _Request(_Message):
    """A client message: untrusted, so strict. Every field must have its JSON type
    exactly; no string is read as a number or a boolean, no float as an int."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


# Enumerations are given by their values, which are JSON strings: these take them.
Choice = Strict(False)


class Hello(_Request):
    """First message on every connection: protocol version and identity.

    With ``token``: sign in as the player that token belongs to (reconnect).
    Without: register a new player called ``name`` and receive a token;
    ``guest`` players may only play casual rooms and are not listed. ``bot``
    declares a program playing on its own: it is labelled a bot
    (``PlayerInfo.bot``) wherever it appears. (Added in protocol 1, optional.)
    """

    type: Literal["hello"] = "hello"
    protocol: int
    name: Name | None = None
    token: Annotated[str | None, Field(default=None, max_length=128)] = None
    guest: bool = False
    bot: bool = False
    client: Annotated[str | None, Field(default=None, max_length=64)] = None
    ref: Ref = None


PAGE_DEFAULT = 50  # listings: rooms (or tournaments) per page unless asked
PAGE_MAX = 100
PageLimit = Annotated[int, Field(ge=1, le=PAGE_MAX)]
Cursor = Annotated[str | None, Field(default=None, max_length=32)]


class ListRooms(_Request):
    """A page of the public rooms waiting or playing, oldest first: ``limit`` of
    them, after the page whose ``next`` cursor is ``after`` (None: the first page)."""

    type: Literal["list_rooms"] = "list_rooms"
    limit: PageLimit = PAGE_DEFAULT
    after: Cursor = None
    ref: Ref = None


class ListOnline(_Request):
    """Who is signed in now, by name: ``limit`` of them from ``offset`` on."""

    type: Literal["list_online"] = "list_online"
    offset: Annotated[int, Field(ge=0, le=100_000)] = 0
    limit: Annotated[int, Field(ge=1, le=100)] = 50
    ref: Ref = None


CardClock = Annotated[int, Field(ge=1_000, le=600_000)]
DealClock = Annotated[int, Field(ge=10_000, le=3_600_000)]
Contribution = Annotated[str, Field(max_length=MAX_CONTRIBUTION)]


def _exactly_an_int(value: Any) -> Any:
    # A Literal of ints takes true for 1 and 3.0 for 3 even in strict mode.
    if type(value) is not int:
        raise PydanticCustomError("int_type", "Input should be a valid integer")
    return value


BestOf = Annotated[Literal[1, 3, 5], BeforeValidator(_exactly_an_int)]


class CreateRoom(_Request):
    """Open a room. ``deals`` > 1 makes it a best-of-N series on as many deals;
    ``rated`` (two seats, no guests, no bots) moves the players' ratings."""

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


class JoinRoom(_Request):
    """Join by ``room_id`` (public rooms) or ``invite_code`` (private rooms).

    ``contribution`` is this player's share of the deal's seed (any text); a
    client that wants to check the deal should send fresh random text.
    """

    type: Literal["join_room"] = "join_room"
    room_id: RoomId | None = None
    invite_code: Annotated[str | None, Field(default=None, max_length=32)] = None
    spectate: bool = False
    contribution: Annotated[str, Field(max_length=MAX_CONTRIBUTION)] = ""
    ref: Ref = None


class LeaveRoom(_Request):
    type: Literal["leave_room"] = "leave_room"
    room_id: RoomId
    ref: Ref = None


class Ready(_Request):
    type: Literal["ready"] = "ready"
    room_id: RoomId
    ready: bool = True
    ref: Ref = None


class StartMatch(_Request):
    """The room's creator starts the match without waiting for everyone ready."""

    type: Literal["start"] = "start"
    room_id: RoomId
    ref: Ref = None


class AddBot(_Request):
    """The room's creator fills an empty seat with a server-side bot."""

    type: Literal["add_bot"] = "add_bot"
    room_id: RoomId
    strategy: Annotated[str, Field(min_length=1, max_length=32)] = "expert"
    ref: Ref = None


class Place(_Request):
    """Place the card of ``turn`` (1..16) on ``cell`` (``"a1"``..``"d4"``)."""

    type: Literal["place"] = "place"
    room_id: RoomId
    turn: Annotated[int, Field(ge=1, le=16)]
    cell: CellName
    ref: Ref = None


class Resync(_Request):
    """Ask for a full ``room_state`` snapshot of a room one belongs to."""

    type: Literal["resync"] = "resync"
    room_id: RoomId
    ref: Ref = None


class Ping(_Request):
    type: Literal["ping"] = "ping"
    ref: Ref = None


class Rematch(_Request):
    """After a series: offer a rematch, or accept the one on offer (``want``
    false withdraws). When every seated player wants it, a new series starts in
    the same room on a fresh deal; ``contribution`` is this player's share of it."""

    type: Literal["rematch"] = "rematch"
    room_id: RoomId
    want: bool = True
    contribution: Contribution = ""
    ref: Ref = None


class QuickPlay(_Request):
    """Wait to be paired with a player of close rating for a rated head-to-head
    match; ``bot_after_ms``: take a (casual) bot opponent after that long, of
    level ``bot_level`` (default: the server's). ``arena``: a bot program's
    rated match against another bot program, in the arena's own pool."""

    type: Literal["quickplay"] = "quickplay"
    pace: Annotated[Pace, Choice] = Pace.LOCKSTEP
    deals: BestOf = 1
    bot_after_ms: Annotated[int | None, Field(default=None, ge=0, le=600_000)] = None
    bot_level: Annotated[str | None, Field(default=None, min_length=1, max_length=32)] = None
    arena: bool = False
    contribution: Contribution = ""
    ref: Ref = None


class CancelQuickPlay(_Request):
    type: Literal["cancel_quickplay"] = "cancel_quickplay"
    ref: Ref = None


class Challenge(_Request):
    """Challenge a named online player to a head-to-head match."""

    type: Literal["challenge"] = "challenge"
    opponent: Name
    pace: Annotated[Pace, Choice] = Pace.LOCKSTEP
    deals: BestOf = 1
    card_clock_ms: CardClock = 30_000
    deal_clock_ms: DealClock = 300_000
    rated: bool = True
    contribution: Contribution = ""
    ref: Ref = None


class AnswerChallenge(_Request):
    """The challenged player accepts or declines; the challenger may cancel."""

    type: Literal["answer_challenge"] = "answer_challenge"
    challenge_id: Annotated[str, Field(min_length=1, max_length=32)]
    accept: bool
    contribution: Contribution = ""
    ref: Ref = None


class GetLeaderboard(_Request):
    """The top ``top`` rated players of a pace, and the ones around ``around``
    (a player's name; default: oneself)."""

    type: Literal["get_leaderboard"] = "get_leaderboard"
    pace: Annotated[Pace, Choice] = Pace.LOCKSTEP
    top: Annotated[int, Field(ge=1, le=100)] = 20
    around: Name | None = None
    arena: bool = False  # the bot arena's board instead of people's
    ref: Ref = None


class ListBots(_Request):
    """The server's computer opponents: its levels, each with its rating."""

    type: Literal["list_bots"] = "list_bots"
    ref: Ref = None


# -- Tournaments (docs/tournaments.md) ---------------------------------------


class TournamentFormat(StrEnum):
    DUPLICATE = "duplicate"
    SWISS = "swiss"
    KNOCKOUT = "knockout"


TournamentId = Annotated[str, Field(min_length=1, max_length=32)]


class CreateTournament(_Request):
    """Open a tournament and host it. ``rounds``: deals for a duplicate field,
    rounds for Swiss (a knockout has as many rounds as its bracket needs);
    ``best_of``: deals per knockout match; ``start_in_ms``: start by itself
    that long from now (None: the host starts it); ``round_clock_ms``: the most
    a round may last (None: the longest its deals can take, plus a minute)."""

    type: Literal["create_tournament"] = "create_tournament"
    name: Title
    format: Annotated[TournamentFormat, Choice] = TournamentFormat.DUPLICATE
    rounds: Annotated[int, Field(ge=1, le=20)] = 5
    best_of: BestOf = 1
    pace: Annotated[Pace, Choice] = Pace.LOCKSTEP
    card_clock_ms: CardClock = 30_000
    deal_clock_ms: DealClock = 300_000
    round_clock_ms: Annotated[int | None, Field(default=None, ge=10_000, le=14_400_000)] = None
    start_in_ms: Annotated[int | None, Field(default=None, ge=0, le=604_800_000)] = None
    max_players: Annotated[int, Field(ge=2, le=512)] = 64
    visibility: Annotated[Visibility, Choice] = Visibility.PUBLIC
    bots: bool = True  # bots may enter (server bots added by the host, bot clients)
    late_join: bool = True  # duplicate and Swiss: register after the start
    registered_only: bool = False  # guests may not enter
    ref: Ref = None


class ListTournaments(_Request):
    """A page of the public tournaments, oldest first (as ``list_rooms``)."""

    type: Literal["list_tournaments"] = "list_tournaments"
    limit: PageLimit = PAGE_DEFAULT
    after: Cursor = None
    ref: Ref = None


class JoinTournament(_Request):
    """Register (or, with ``spectate``, watch) by ``tournament_id`` or ``invite_code``."""

    type: Literal["join_tournament"] = "join_tournament"
    tournament_id: TournamentId | None = None
    invite_code: Annotated[str | None, Field(default=None, max_length=32)] = None
    spectate: bool = False
    contribution: Contribution = ""
    ref: Ref = None


class LeaveTournament(_Request):
    """An entrant withdraws; a spectator stops watching."""

    type: Literal["leave_tournament"] = "leave_tournament"
    tournament_id: TournamentId
    ref: Ref = None


class ManageTournament(_Request):
    """The host's (or an admin's) commands; ``player_id`` names whom to remove."""

    type: Literal["manage_tournament"] = "manage_tournament"
    tournament_id: TournamentId
    action: Literal["start", "pause", "resume", "cancel", "remove"]
    player_id: Annotated[str | None, Field(default=None, max_length=64)] = None
    ref: Ref = None


class AddTournamentBot(_Request):
    """The host enters ``count`` server-side bots playing ``strategy``."""

    type: Literal["add_tournament_bot"] = "add_tournament_bot"
    tournament_id: TournamentId
    strategy: Annotated[str, Field(min_length=1, max_length=32)] = "greedy"
    count: Annotated[int, Field(ge=1, le=256)] = 1
    ref: Ref = None


class GetTournament(_Request):
    """A fresh ``tournament`` snapshot (public, or one's own private tournament)."""

    type: Literal["get_tournament"] = "get_tournament"
    tournament_id: TournamentId
    ref: Ref = None


# -- The daily deal (docs/daily.md) ----------------------------------------

DayName = Annotated[
    str, Field(min_length=10, max_length=10, pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
]
# An attempt at the daily deal is played out even if the day ends meanwhile, and the
# day's deal is revealed only once every attempt is over: its clocks are bounded.
DailyCardClock = Annotated[int, Field(ge=5_000, le=120_000)]
DailyDealClock = Annotated[int, Field(ge=30_000, le=1_800_000)]


class GetDaily(_Request):
    """The daily deal of ``day`` (a UTC day, ``YYYY-MM-DD``; default today):
    the schedule of commitments, one's own attempt, the ``top`` of the standings
    and, once the day is over, its deal and where the field put each card."""

    type: Literal["get_daily"] = "get_daily"
    day: DayName | None = None
    top: Annotated[int, Field(ge=1, le=100)] = 20
    ref: Ref = None


class PlayDaily(_Request):
    """Begin one's one attempt at today's deal, alone in a room of one seat, at the
    pace chosen: lockstep times each card (5 to 120 s), a race the deal (30 s to
    30 min). Registered players only; the attempt counts once it begins."""

    type: Literal["play_daily"] = "play_daily"
    pace: Annotated[Pace, Choice] = Pace.LOCKSTEP
    card_clock_ms: DailyCardClock = 30_000
    deal_clock_ms: DailyDealClock = 300_000
    ref: Ref = None


ClientMessage = Annotated[
    Hello | ListRooms | CreateRoom | JoinRoom | LeaveRoom | Ready | StartMatch | AddBot | Place
    | Resync | Ping | Rematch | QuickPlay | CancelQuickPlay | Challenge | AnswerChallenge
    | GetLeaderboard | ListBots | CreateTournament | ListTournaments | JoinTournament
    | LeaveTournament | ManageTournament | AddTournamentBot | GetTournament | ListOnline | GetDaily
    | PlayDaily,
    Field(discriminator="type"),
]  # fmt: skip

# Every client message's ``type``, in the union's order: read from the union, never kept apart.
CLIENT_TYPES: tuple[str, ...] = tuple(
    str(kind.model_fields["type"].default) for kind in get_args(get_args(ClientMessage)[0])
)


# ---------------------------------------------------------------------------
# Server -> client: shared shapes


class PlayerInfo(_Message):
    id: str
    name: str
    bot: bool = False
    guest: bool = False


class SeatInfo(_Message):
    seat: int
    player: PlayerInfo
    ready: bool = False
    connected: bool = True


class RoomSummary(_Message):
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


class SeriesStanding(_Message):
    player: PlayerInfo
    deals_won: int  # deals ranked first (shared firsts count for each)
    points: int  # total over the deals played
    time_used_ms: int
    forfeited: bool = False  # left the match: it counts as lost


class SeriesInfo(_Message):
    """Where a best-of-N series stands. Ordered: most deals won, then points,
    then (race pace) least time used; ``winner`` is None while it goes on and
    for a draw."""

    best_of: int
    deal: int  # the deal being played, or the last one played
    standings: list[SeriesStanding]
    finished: bool = False
    # Rated, and a side placed no card of the first deal itself: over, rated for
    # nobody, no winner (docs/ratings.md). (Added in protocol 1, optional.)
    aborted: bool = False
    winner: PlayerInfo | None = None
    next_deal_ms: int | None = None  # time until the next deal starts


class RoomInfo(_Message):
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
    rematch: list[str] = []  # ids of the players who want a rematch
    origin: RoomOrigin = RoomOrigin.ROOM


class HandScoreOut(_Message):
    """One row or column, itemized (engine HandScore.to_dict())."""

    hand: list[str]
    starter: str
    fifteens: list[list[str]]
    pairs: list[list[str]]
    runs: list[list[str]]
    flush: list[str]
    nobs: str | None
    points: dict[str, int]
    total: int


class BoardScoreOut(_Message):
    """A whole board, itemized (engine BoardScore.to_dict())."""

    starter: str
    rows: list[HandScoreOut]
    columns: list[HandScoreOut]
    heels: int
    total: int
    win: bool


class PlacementOut(_Message):
    turn: int
    cell: str
    card: str
    auto: bool = False
    elapsed_ms: int = 0


class BoardResult(_Message):
    player: PlayerInfo
    seat: int
    rank: int  # 1 = best; equal boards share a rank
    cells: list[str | None]  # 16 entries row by row (a1, b1, c1, d1, a2, ...)
    placements: list[PlacementOut]
    score: BoardScoreOut
    time_used_ms: int


# ---------------------------------------------------------------------------
# Server -> client: messages


class Welcome(_Message):
    type: Literal["welcome"] = "welcome"
    protocol: int = PROTOCOL_VERSION
    server: str
    player: PlayerInfo
    token: str | None = None  # only when newly issued: keep it secret
    ref: Ref = None


class ErrorMessage(_Message):
    type: Literal["error"] = "error"
    code: str
    reason: str
    room_id: str | None = None
    ref: Ref = None


class Rooms(_Message):
    """A page of public rooms; ``next``: the cursor of the next page (None: the last);
    ``total``: how many rooms are listed in all."""

    type: Literal["rooms"] = "rooms"
    rooms: list[RoomSummary]
    next: str | None = None
    total: int | None = None
    ref: Ref = None


class RoomUpdate(_Message):
    """The room changed (someone joined, left, readied, connected...)."""

    type: Literal["room"] = "room"
    room: RoomInfo
    ref: Ref = None


class Left(_Message):
    type: Literal["left"] = "left"
    room_id: str
    ref: Ref = None


class MatchStarted(_Message):
    """The deal is fixed: its commitment is published before any card."""

    type: Literal["match_started"] = "match_started"
    room_id: str
    match_id: str
    pace: Pace
    seed_commitment: str  # SHA-256 of the deal's seed, see docs/fairness.md
    server_commitment: str
    contributions: list[str]  # every seat's contribution, in seat order
    card_clock_ms: int
    deal_clock_ms: int
    deal: int = 1  # which deal of the series
    best_of: int = 1


class CardDealt(_Message):
    """The card of ``turn`` for this player to place."""

    type: Literal["card"] = "card"
    room_id: str
    turn: int
    card: str
    legal: list[str]  # the cells where it may go on this player's grid
    deadline_ms: int  # lockstep: time left for this card; race: left on the deal clock


class Placed(_Message):
    """This player's placement was accepted (``auto``: made by the server)."""

    type: Literal["placed"] = "placed"
    room_id: str
    turn: int
    cell: str
    card: str
    auto: bool = False
    ref: Ref = None


class Progress(_Message):
    """Who has placed how many cards: never where, never which."""

    type: Literal["progress"] = "progress"
    room_id: str
    turn: int  # lockstep: the current turn; race: the highest turn reached
    placed: dict[str, int]  # player id -> cards placed so far
    connected: dict[str, bool]
    # Time left while the match is played: lockstep on this turn's card clock,
    # race on the deal clock; None once it is over. (Added in protocol 1, optional.)
    deadline_ms: int | None = None


class MatchResult(_Message):
    """The starter is revealed, every board scored and ranked, the seed revealed."""

    type: Literal["match_result"] = "match_result"
    room_id: str
    match_id: str
    starter: str
    seed: str
    server_secret: str
    seed_commitment: str
    boards: list[BoardResult]  # ordered by rank
    deal: int = 1
    series: SeriesInfo | None = None  # the series after this deal


class YourBoard(_Message):
    """One's own board and turn state, part of a ``room_state`` snapshot."""

    cells: list[str | None]
    placements: list[PlacementOut]
    turn: int | None  # the turn whose card is waiting, None when done
    card: str | None
    legal: list[str]
    deadline_ms: int | None
    time_used_ms: int


class RoomState(_Message):
    """A full snapshot for one recipient: sent on join, reconnect and ``resync``."""

    type: Literal["room_state"] = "room_state"
    room: RoomInfo
    match_id: str | None = None
    seed_commitment: str | None = None
    contributions: list[str] = []
    you: YourBoard | None = None  # None for spectators and before the match
    progress: Progress | None = None
    result: MatchResult | None = None
    ref: Ref = None


class Pong(_Message):
    type: Literal["pong"] = "pong"
    ref: Ref = None


class QueueStatus(_Message):
    """Quick play: ``waiting`` (queued), ``matched`` (the room is ``room_id``; its
    ``room_state`` follows), ``cancelled``."""

    type: Literal["queue"] = "queue"
    state: Literal["waiting", "matched", "cancelled"]
    pace: Pace
    deals: int
    rating: int | None = None  # one's rating for the pace, the queue's yardstick
    room_id: str | None = None
    ref: Ref = None


class ChallengeInfo(_Message):
    id: str
    challenger: PlayerInfo
    opponent: PlayerInfo
    pace: Pace
    deals: int
    card_clock_ms: int
    deal_clock_ms: int
    rated: bool
    expires_ms: int  # time left to answer when this was sent


class ChallengeUpdate(_Message):
    """Sent to both players of a challenge whenever its state changes."""

    type: Literal["challenge_state"] = "challenge_state"
    challenge: ChallengeInfo
    state: Literal["offered", "accepted", "declined", "cancelled", "expired"]
    room_id: str | None = None  # when accepted
    ref: Ref = None


class RatingChange(_Message):
    player: PlayerInfo
    before: int
    after: int
    deviation_before: int
    deviation_after: int
    provisional: bool  # after this match


class RatingsChanged(_Message):
    """A rated match ended: each player's new rating for the pace."""

    type: Literal["ratings"] = "ratings"
    room_id: str
    pace: Pace
    changes: list[RatingChange]
    arena: bool = False  # ratings of the bot arena's pool


class LeaderboardEntry(_Message):
    rank: int
    player: PlayerInfo
    rating: int
    deviation: int
    games: int
    provisional: bool


class Leaderboard(_Message):
    """Rated players of a pace: the ranked ones by rating, then the provisional
    ones (listed but not ranked: their ``rank`` is 0), by rating."""

    type: Literal["leaderboard"] = "leaderboard"
    pace: Pace
    top: list[LeaderboardEntry]
    around: list[LeaderboardEntry]  # the player asked about and its neighbours
    players: int  # ranked (not provisional) players in all
    arena: bool = False  # the bot arena's board
    ref: Ref = None


class BotLevel(_Message):
    """One level of the server's computer opponents."""

    name: str  # what add_bot, add_tournament_bot and quickplay's bot_level take
    level: int  # 1 (weakest) ..
    title: str
    description: str
    aliases: list[str]  # other names for the same level
    rating: int | None  # Glicko-2, measured among the levels (docs/bots.md); None: not measured
    deviation: int | None


class Bots(_Message):
    """The reply to ``list_bots``: the levels, weakest first, and the bot the
    server seats for quick play when a player's wait runs out."""

    type: Literal["bots"] = "bots"
    levels: list[BotLevel]
    quickplay_bot: str
    ref: Ref = None


class TournamentSummary(_Message):
    """A tournament as the list shows it."""

    id: str
    name: str
    format: TournamentFormat
    status: str  # registering, playing, paused, finished, cancelled
    visibility: Visibility
    pace: Pace
    rounds: int
    best_of: int
    round: int  # the round being played or last played; 0 before the start
    entrants: int
    max_players: int
    host: PlayerInfo
    starts_ms: int | None = None  # time left before a scheduled start
    registered_only: bool = False  # guests may not enter


class TournamentEntrant(_Message):
    player: PlayerInfo
    status: EntrantStatus
    joined_round: int  # the first round it could play
    seed: int | None = None  # knockout: its seed (1 = best rating)


class TournamentStanding(_Message):
    """One line of the standings. Duplicate: ``percentage`` of the ``top``
    matchpoints, then ``points``. Swiss: ``score``, ``buchholz``,
    ``sonneborn_berger``. Knockout: still in, then ``out_in_round`` (later is
    better), then seed."""

    rank: int  # equal standings share a rank
    player: PlayerInfo
    status: str
    deals: int  # deals played
    points: int  # card points over those deals
    matchpoints: float | None = None
    top: float | None = None
    percentage: float | None = None
    score: float | None = None
    buchholz: float | None = None
    sonneborn_berger: float | None = None
    out_in_round: int | None = None


class TournamentTable(_Message):
    number: int
    room_id: str | None  # None for a bye
    players: list[str]  # player ids, seat order
    status: TableStatus
    winner: str | None = None  # the winner's id (Swiss, knockout); None: a draw or not over
    points: dict[str, int] = {}  # card points so far, by player id


class TournamentRound(_Message):
    number: int
    status: Literal["playing", "finished"]
    contribution: str  # the seed contribution every table of the round shares
    server_commitment: str  # SHA-256 of this round's secret
    server_secret: str | None = None  # revealed once the round is over
    tables: int
    finished_tables: int


class TournamentInfo(_Message):
    """A tournament as its entrants and spectators see it."""

    id: str
    name: str
    format: TournamentFormat
    status: str  # registering, playing, paused, finished, cancelled
    visibility: Visibility
    invite_code: str | None = None
    pace: Pace
    card_clock_ms: int
    deal_clock_ms: int
    round_clock_ms: int
    rounds: int
    best_of: int
    max_players: int
    bots: bool
    late_join: bool
    host: PlayerInfo
    commitment: str  # SHA-256 of the first round's secret, published at creation
    round: int
    next_round_ms: int | None = None  # time before the start or the next round
    round_left_ms: int | None = None  # time left on the round clock
    entrants: list[TournamentEntrant]
    standings: list[TournamentStanding]
    history: list[TournamentRound]  # every round begun, first first
    tables: list[TournamentTable]  # the tables of the current (or last) round
    bracket: list[list[str | None]] | None = None  # knockout: each round's slots
    registered_only: bool = False  # guests may not enter


class TournamentUpdate(_Message):
    """Sent to entrants and spectators when the tournament changes, and in reply
    to ``create_tournament``, ``join_tournament`` and ``get_tournament``."""

    type: Literal["tournament"] = "tournament"
    tournament: TournamentInfo
    ref: Ref = None


class Tournaments(_Message):
    """A page of public tournaments, as ``rooms`` is of rooms."""

    type: Literal["tournaments"] = "tournaments"
    tournaments: list[TournamentSummary]
    next: str | None = None
    total: int | None = None
    ref: Ref = None


class Online(_Message):
    """The reply to ``list_online``: players signed in now, ordered by name
    (case-insensitive, then id); ``total`` counts them all."""

    type: Literal["online"] = "online"
    players: list[PlayerInfo]
    offset: int = 0
    total: int
    ref: Ref = None


class DailyCommitment(_Message):
    """One day of the schedule: its commitment (SHA-256 of its secret), published at
    least seven days before it begins, and its secret once it is over."""

    day: str
    commitment: str
    secret: str | None = None


class DailyEntry(_Message):
    """One attempt in the day's standings: numbers only, never a card."""

    rank: int | None = None  # None while it is being played
    player: PlayerInfo
    status: Literal["playing", "finished"]
    score: int | None = None
    percentile: int | None = None  # of the other finished players, the share below (level: half)
    time_used_ms: int | None = None
    pace: Pace
    streak: int  # consecutive days played, ending with this day


class DailyYou(_Message):
    """One's own attempt at the day, and one's streaks."""

    status: Literal["none", "playing", "finished"]
    room_id: str | None = None
    match_id: str | None = None
    pace: Pace | None = None
    rank: int | None = None
    score: int | None = None
    percentile: int | None = None
    cells: list[str | None] | None = None  # one's own finished board
    streak: int = 0  # held today: today's, else yesterday's (still to be kept), else 0
    longest_streak: int = 0


class DailyDeal(_Message):
    """A day's deal, once the day is over: its secret, seed and cards, and how many
    players put each turn's card in each cell (``field[turn - 1][cell]``, cells in
    the order a1, b1, c1, d1, a2, ...)."""

    secret: str
    seed: str
    contribution: str
    cards: list[str]
    starter: str
    field: list[list[int]]


class Daily(_Message):
    """The reply to ``get_daily`` (and the content of ``GET /api/daily/{day}``).

    ``status``: ``upcoming`` (a day to come: its commitment only), ``open``
    (today: live standings, scores only), ``closing`` (over, an attempt begun
    before its end still being played), ``over`` (its secret and deal revealed)."""

    type: Literal["daily"] = "daily"
    day: str
    today: str
    status: Literal["upcoming", "open", "closing", "over"]
    starts_ms: int
    ends_ms: int
    left_ms: int = 0  # time left until the day ends (0 once it is over)
    commitment: str | None = None
    schedule: list[DailyCommitment]
    players: int  # attempts begun
    finished: int
    standings: list[DailyEntry]
    you: DailyYou | None = None
    deal: DailyDeal | None = None
    ref: Ref = None


ServerMessage = Annotated[
    Welcome | ErrorMessage | Rooms | RoomUpdate | Left | MatchStarted | CardDealt | Placed
    | Progress | MatchResult | RoomState | Pong | QueueStatus | ChallengeUpdate
    | RatingsChanged | Leaderboard | Bots | TournamentUpdate | Tournaments | Online | Daily,
    Field(discriminator="type"),
]  # fmt: skip

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
