"""Tournaments (docs/tournaments.md): hosting, the list, registering and watching,
the host's commands, and a tournament as its entrants and spectators see it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import Field

from protocol.fields import (
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
    Title,
    Visibility,
)


class TournamentFormat(StrEnum):
    DUPLICATE = "duplicate"
    SWISS = "swiss"
    KNOCKOUT = "knockout"


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


TournamentId = Annotated[str, Field(min_length=1, max_length=32)]


class FormatOffer(Message):
    """A format the server hosts, as a form to host a tournament offers it (sent in
    ``welcome``): what ``create_tournament`` may ask of it. ``rounds``: what its
    ``rounds`` setting counts ("deals", "rounds"; None: the format decides, a
    knockout from its places); ``best_of``: the deals per table a host may choose;
    ``late_join``: whether a host may let players enter after the start."""

    format: str  # the wire name, CreateTournament.format
    title: str
    rounds: str | None
    best_of: list[int]
    late_join: bool


class CreateTournament(Request):
    """Open a tournament and host it. ``rounds``, ``best_of`` and ``late_join``
    mean what the format's offer says (``welcome.formats``): deals for a duplicate
    field, rounds for Swiss (a knockout has as many rounds as its bracket needs);
    ``best_of``: deals per table, 1 but in a knockout; ``start_in_ms``: start by itself
    that long from now (None: the host starts it); ``round_clock_ms``: the most
    a round may last (None: the longest its deals can take, plus a minute)."""

    quota = "tournament"

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


TournamentListStatus = Literal["registering", "playing", "paused", "finished", "cancelled"]


class ListTournaments(Request):
    """A page of the public tournaments: without ``status``, those held live (not
    over, or over in the last minutes), oldest first, as ``list_rooms``; with a
    ``status``, every public tournament in that status ever stored, newest first
    (``finished`` lists them all, with their winners)."""

    type: Literal["list_tournaments"] = "list_tournaments"
    limit: PageLimit = PAGE_DEFAULT
    after: Cursor = None
    status: TournamentListStatus | None = None
    ref: Ref = None


class JoinTournament(Request):
    """Register (or, with ``spectate``, watch) by ``tournament_id`` or ``invite_code``."""

    quota = "join"

    type: Literal["join_tournament"] = "join_tournament"
    tournament_id: TournamentId | None = None
    invite_code: Annotated[str | None, Field(default=None, max_length=32)] = None
    spectate: bool = False
    contribution: Contribution = ""
    ref: Ref = None


class LeaveTournament(Request):
    """An entrant withdraws; a spectator stops watching."""

    quota = "join"

    type: Literal["leave_tournament"] = "leave_tournament"
    tournament_id: TournamentId
    ref: Ref = None


# The host's commands (manage_tournament), and what a host may be offered to do
# (TournamentActions.host): those and adding bots (add_tournament_bot).
ManageAction = Literal["start", "pause", "resume", "cancel", "remove"]
HostAction = Literal[ManageAction, "add_bots"]
# Whether a new entrant may enter: before the start, or from the next round.
Entry = Literal["open", "next_round"]


class ManageTournament(Request):
    """The host's (or an admin's) commands; ``player_id`` names whom to remove."""

    type: Literal["manage_tournament"] = "manage_tournament"
    tournament_id: TournamentId
    action: ManageAction
    player_id: Annotated[str | None, Field(default=None, max_length=64)] = None
    ref: Ref = None


class AddTournamentBot(Request):
    """The host enters ``count`` server-side bots playing ``strategy``."""

    type: Literal["add_tournament_bot"] = "add_tournament_bot"
    tournament_id: TournamentId
    strategy: Annotated[str, Field(min_length=1, max_length=32)] = "greedy"
    count: Annotated[int, Field(ge=1, le=256)] = 1
    ref: Ref = None


class GetTournament(Request):
    """A fresh ``tournament`` snapshot (public, or one's own private tournament)."""

    type: Literal["get_tournament"] = "get_tournament"
    tournament_id: TournamentId
    ref: Ref = None


class TournamentSummary(Message):
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
    winners: list[PlayerInfo] = Field(default_factory=list)  # finished: those ranked first
    # How the format is shown (optional: "" from an older server): its name, and its
    # length as a list shows it ("5 deals", "4 rounds", "best of 3")
    format_title: str = ""
    length: str = ""


class TournamentEntrant(Message):
    player: PlayerInfo
    status: EntrantStatus
    joined_round: int  # the first round it could play
    seed: int | None = None  # knockout: its seed (1 = best rating)


class TournamentStanding(Message):
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
    # The figures under the tournament's ``columns``, as shown (optional: none from
    # an older server)
    cells: list[str] = Field(default_factory=list)


class TournamentTable(Message):
    number: int
    room_id: str | None  # None for a bye
    players: list[str]  # player ids, seat order
    status: TableStatus
    winner: str | None = None  # the winner's id (Swiss, knockout); None: a draw or not over
    # card points so far, by player id (a pydantic default: copied for each model)
    points: dict[str, int] = {}  # noqa: RUF012


class TournamentRound(Message):
    number: int
    status: Literal["playing", "finished"]
    contribution: str  # the seed contribution every table of the round shares
    server_commitment: str  # SHA-256 of this round's secret
    server_secret: str | None = None  # revealed once the round is over
    tables: int
    finished_tables: int


class TournamentActions(Message):
    """What may be done in a tournament now, as the server decides it (its phase
    table and its rules): a client offers these and no others. ``entry``: a new
    entrant enters now (``open``: before the start), plays from the next round
    (``next_round``: late entry), or may not enter (None). ``withdraw``: an active
    entrant may withdraw. ``host``: what the host may do now, among ``start``,
    ``pause``, ``resume``, ``cancel``, ``remove`` (manage_tournament's actions) and
    ``add_bots`` (add_tournament_bot)."""

    entry: Entry | None = None
    withdraw: bool = False
    host: list[HostAction] = Field(default_factory=list)


class TournamentInfo(Message):
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
    winners: list[PlayerInfo] = Field(default_factory=list)  # finished: those ranked first
    # Why a line ranks above the next where the format's first figure is level: the
    # tie-break that decided, in words every client shows as they are (added within 1)
    tie_notes: list[str] = Field(default_factory=list)
    # What may be done now (optional: an older server sends none, and nothing is offered)
    actions: TournamentActions = Field(default_factory=TournamentActions)
    # How the format is shown, as the server words it (optional: "" from an older server):
    # its name, its length ("5 deals", "4 rounds", "best of 3, 3 rounds") and the
    # titles of the standings' figures after rank and player (each line's ``cells``)
    format_title: str = ""
    length: str = ""
    columns: list[str] = Field(default_factory=list)


class TournamentUpdate(Message):
    """Sent to entrants and spectators when the tournament changes, and in reply
    to ``create_tournament``, ``join_tournament`` and ``get_tournament``."""

    type: Literal["tournament"] = "tournament"
    tournament: TournamentInfo
    ref: Ref = None


class Tournaments(Message):
    """A page of public tournaments, as ``rooms`` is of rooms."""

    type: Literal["tournaments"] = "tournaments"
    tournaments: list[TournamentSummary]
    next: str | None = None
    total: int | None = None
    ref: Ref = None


# This area's client messages (tournaments: run by their desk). protocol.wire assembles the
# client's union from the areas' unions, and the server routes by them.
TournamentRequest = (
    CreateTournament
    | ListTournaments
    | JoinTournament
    | LeaveTournament
    | ManageTournament
    | AddTournamentBot
    | GetTournament
)
# This area's server messages: protocol.wire assembles the server's union the same way.
TournamentNews = TournamentUpdate | Tournaments
