"""Domain events: what a room decided, for the storage layer to persist.

Rooms append these as they change; the WebSocket handler hands them to
:class:`server.storage.Storage`, which writes them and nothing else. Times are
wall-clock milliseconds since the epoch, as the room was told them.

Fields that hold a secret or a card (seeds, server secrets, the roots they
come from, cells and cards, a director's snapshot) are left out of ``repr``,
so that no log line that names an event can show a deal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from protocol.deals import RankNote
from protocol.fields import Pace, PlayerInfo, Visibility
from protocol.rooms import RoomOrigin
from protocol.tournaments import EntrantStatus, TableStatus, TournamentFormat


class Abandonment(StrEnum):
    LEFT = "left"  # left a series being played: a forfeit
    TIMEOUT = "timeout"  # away beyond the grace period
    IDLE = "idle"  # placed no card of an aborted rated series


class TournamentChange(StrEnum):
    STARTED = "started"
    PAUSED = "paused"
    RESUMED = "resumed"
    FINISHED = "finished"
    CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    id: str
    name: str
    guest: bool = False
    bot: bool = False


def player_record(player: PlayerInfo) -> PlayerRecord:
    """What is stored of ``player`` where a room or a tournament names it."""
    return PlayerRecord(player.id, player.name, player.guest, player.bot)


@dataclass(frozen=True, slots=True)
class RoomOpened:
    room_id: str
    name: str
    visibility: Visibility
    pace: Pace
    seats: int
    card_clock_ms: int
    deal_clock_ms: int
    creator_id: str
    server_commitment: str
    at_ms: int
    invite_code: str | None = None
    deals: int = 1
    rated: bool = False
    origin: RoomOrigin = RoomOrigin.ROOM


@dataclass(frozen=True, slots=True)
class MatchBegan:
    match_id: str
    room_id: str
    pace: Pace
    players: tuple[tuple[int, PlayerRecord, str], ...]  # (seat, player, contribution)
    seed: str = field(repr=False)
    server_secret: str = field(repr=False)
    seed_commitment: str
    server_commitment: str
    card_clock_ms: int
    deal_clock_ms: int
    at_ms: int
    series_id: str = ""
    deal: int = 1
    embargo: str = ""  # a tournament round's embargo group (server.visibility); "" none


@dataclass(frozen=True, slots=True)
class CardPlaced:
    match_id: str
    player_id: str
    turn: int
    cell: str = field(repr=False)
    card: str = field(repr=False)
    elapsed_ms: int
    auto: bool
    at_ms: int


@dataclass(frozen=True, slots=True)
class BoardOutcome:
    player_id: str
    seat: int
    rank: int
    score: int
    time_used_ms: int
    cells: tuple[str, ...] = field(repr=False)
    detail: dict[str, object] = field(repr=False)  # engine BoardScore.to_dict()


@dataclass(frozen=True, slots=True)
class MatchEnded:
    match_id: str
    starter: str = field(repr=False)
    outcomes: tuple[BoardOutcome, ...]
    at_ms: int
    ranking: tuple[RankNote, ...] = ()  # why, where the score did not decide (match_result's)


@dataclass(frozen=True, slots=True)
class SeriesBegan:
    series_id: str  # the id of its first deal's match
    room_id: str
    best_of: int
    rated: bool
    pace: Pace
    origin: RoomOrigin
    players: tuple[PlayerRecord, ...]  # seat order
    at_ms: int
    # What the series' deal secrets follow from, and how (server.series.deal_secrets):
    # with it a restarted server goes on with the series. Kept secret.
    root_secret: str = field(default="", repr=False)
    secret_scheme: str = "chain"  # chain (a room), table (a tournament table)
    # Each seat's server bot: (level, seed) for a seat the server plays, ("", "") for a
    # person or a bot program; what a restarted server rebuilds the same bot from.
    # Empty: no server bot seated.
    seat_bots: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class SeriesEnded:
    series_id: str
    room_id: str
    rated: bool
    pace: Pace
    # (player id, deals won, points, time used, forfeited), best first
    standings: tuple[tuple[str, int, int, int, bool], ...]
    winner_id: str | None  # None: a draw (or aborted)
    deals: int
    at_ms: int
    # A rated series a side never played (docs/ratings.md): rated for nobody.
    aborted: bool = False


@dataclass(frozen=True, slots=True)
class Abandoned:
    """A player left a series being played (``left``: a forfeit) or stayed away
    beyond the grace period (``timeout``: the server played on for it)."""

    player_id: str
    room_id: str
    series_id: str
    match_id: str
    kind: Abandonment
    at_ms: int


@dataclass(frozen=True, slots=True)
class RatingChanged:
    player_id: str
    # The ratings it moves: a pace's for people, arena-PACE for bot programs
    # (server.head_to_head.rating_pool); the key the ratings table is stored under.
    pool: str
    series_id: str
    room_id: str
    opponent_id: str
    score: float  # 1 win, 0.5 draw, 0 loss
    before: tuple[float, float, float]  # rating, deviation, volatility
    after: tuple[float, float, float]
    games: int  # rated matches played at this pace, this one included
    at_ms: int


# -- Tournaments: what a tournament director decided (server.tournaments.director)


@dataclass(frozen=True, slots=True)
class TournamentCreated:
    tournament_id: str
    name: str
    format: TournamentFormat
    visibility: Visibility
    host: PlayerRecord
    settings: dict[str, object]  # every setting, as in the protocol's TournamentInfo
    commitment: str  # SHA-256 of the first round's secret
    at_ms: int


@dataclass(frozen=True, slots=True)
class TournamentEntry:
    """An entrant registered, or its status changed (withdrawn, removed, eliminated)."""

    tournament_id: str
    player: PlayerRecord
    number: int  # registration order, from 1
    contribution: str
    joined_round: int
    status: EntrantStatus
    seed: int | None
    at_ms: int


@dataclass(frozen=True, slots=True)
class TournamentRoundBegan:
    tournament_id: str
    round: int
    contribution: str  # the seat contribution of every table of the round
    contributors: tuple[tuple[str, str], ...]  # (player id, contribution) it was made from
    server_commitment: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class TournamentTableChanged:
    """A table was opened (``status`` playing), got a bye, or finished."""

    tournament_id: str
    round: int
    table: int
    room_id: str | None
    series_id: str | None
    players: tuple[str, ...]
    status: TableStatus
    winner_id: str | None
    points: tuple[tuple[str, int], ...]
    at_ms: int


@dataclass(frozen=True, slots=True)
class TournamentRoundEnded:
    tournament_id: str
    round: int
    server_secret: str = field(repr=False)
    at_ms: int


@dataclass(frozen=True, slots=True)
class EmbargoLifted:
    """Every table playing the deals of ``embargo`` (a tournament round's group,
    server.visibility.round_embargo) has finished: they may be shown to anyone."""

    embargo: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class TournamentStatus:
    """The tournament started, paused, resumed, finished or was cancelled;
    ``standings`` are the final ones once it is finished or cancelled."""

    tournament_id: str
    status: TournamentChange
    standings: tuple[dict[str, object], ...] | None
    at_ms: int


@dataclass(frozen=True, slots=True)
class TournamentSnapshot:
    """Everything a director knows (``Director.snapshot``), stored whenever it changes
    so that a restarted server rebuilds the tournament (``Director.restore``)."""

    tournament_id: str
    state: dict[str, object] = field(repr=False)  # JSON-able; holds the round secrets' root
    at_ms: int


# -- The daily deal (server.daily)


@dataclass(frozen=True, slots=True)
class DailyAttemptBegan:
    """A player began its one attempt at a day's deal (server.daily.desk), in a solo
    room whose series is ``match_id``; it counts from now on, finished or not."""

    day: str  # YYYY-MM-DD, UTC
    player_id: str
    room_id: str
    match_id: str
    pace: Pace
    clock_ms: int  # the card clock in lockstep, the deal clock in a race
    at_ms: int


TournamentEvent = (
    TournamentCreated | TournamentEntry | TournamentRoundBegan | TournamentTableChanged
    | TournamentRoundEnded | TournamentStatus | TournamentSnapshot | EmbargoLifted
)  # fmt: skip


Event = (
    RoomOpened | MatchBegan | CardPlaced | MatchEnded | SeriesBegan | SeriesEnded | Abandoned
    | RatingChanged | TournamentEvent | DailyAttemptBegan
)  # fmt: skip
