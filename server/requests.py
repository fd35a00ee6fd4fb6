"""What a desk asks of the lobby: requests carried out after the desk's step, never
calls back into the lobby while it steps.

No desk of the lobby (head to head: the quick-play queue, the arena and
challenges; the tournaments'; the daily deal's) holds the lobby. Each of its steps
returns a :class:`DeskResult`: the messages it sends, the events it has stored and
the requests it makes, in the order it made them. The lobby carries the requests
out once the desk has returned, one after the other in that order
(``Lobby.carry_out``): the desk's events are stored first, then each request's,
and each request's messages follow the desk's own; what a request leads the desk
to ask next (a director told its tables are open) joins the end of the queue. A
room settled while a request is carried out tells its desk of its events (a
tournament table's deal over), and what the desk asks then is carried out there
and then, before the next request of the queue.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import BaseModel

from protocol.fields import PlayerInfo
from server.events import Event
from server.room import Outbound, Room, RoomResult, RoomSettings


@dataclass(frozen=True, slots=True)
class OpenHeadToHead:
    """Open a two-seat room for ``first`` and ``second`` (each a person and their
    contribution, or ``second`` a server bot's level), seat both and start it. Each
    person is first told ``notice(player_id, room_id)``, then sent the room's
    snapshot; then comes the start."""

    settings: RoomSettings
    first: tuple[PlayerInfo, str]
    second: tuple[PlayerInfo, str] | str
    notice: Callable[[str, str], BaseModel]


@dataclass(frozen=True, slots=True)
class OpenDailyAttempt:
    """Open ``player``'s attempt at the deal of ``day``: a solo room on the day's
    ``secret``, under its ``embargo``, started at once, its snapshot answering
    ``ref``. Once it is open and settled, the daily desk keeps the attempt and says
    what to store of it (``DailyDesk.opened``)."""

    day: int
    settings: RoomSettings
    player: PlayerInfo
    contribution: str
    secret: str
    embargo: str
    ref: str | None


@dataclass(frozen=True, slots=True)
class LiftEmbargo:
    """Room ``room_id`` (if it is still here) shows what embargo ``group`` held back,
    and is settled."""

    room_id: str
    group: str


@dataclass(frozen=True, slots=True)
class OpenTable:
    """A tournament director's request (server.tournaments.rounds): open a room for
    one table, seat ``players`` (bots where ``strategies`` says), its deals' secrets
    taken from the round's table ``root`` (``SecretScheme.TABLE``), every seat
    contributing ``contribution``, under the round's ``embargo``; the desk is told
    of the room (``TournamentDesk.table_opened``); then each person is sent the
    room, the room starts (a player not online starts its grace period) and is
    settled."""

    tournament_id: str
    round: int
    table: int
    players: tuple[PlayerInfo, ...]
    strategies: tuple[str, ...]  # "" for a person
    contribution: str
    root: str = field(repr=False)  # secret until the round is over: never in a log
    embargo: str
    settings: RoomSettings


@dataclass(frozen=True, slots=True)
class StopTable:
    """The round clock ran out: place every unplaced card and end the table's series."""

    room_id: str


@dataclass(frozen=True, slots=True)
class Forfeit:
    """A withdrawn or removed entrant leaves its table (the server plays it out)."""

    room_id: str
    player: PlayerInfo


@dataclass(frozen=True, slots=True)
class Reveal:
    """A round is over: its tables' rooms may show their deals to everyone."""

    embargo: str
    room_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class WatchTable:
    """Who may watch a table played on another node than its director's: anyone
    (a public tournament), or these members (host, entrants, spectators)."""

    room_id: str
    anyone: bool
    members: tuple[str, ...]


# What a desk asks of a table's room: a director's requests, and who may watch it.
TableRequest = StopTable | Forfeit | Reveal | WatchTable
# A table's result for a director on another node: (room, series, deals finished, over).
TableResult = tuple[str, str, int, bool]


@dataclass(frozen=True, slots=True)
class ActOnTable:
    """Do ``act`` to table room ``room_id`` (its round's clock ran out; a withdrawn
    entrant leaves it) and settle the room. ``what`` names it in the log if the
    table had moved on meanwhile."""

    room_id: str
    act: Callable[[Room], RoomResult]
    what: str


@dataclass(frozen=True, slots=True)
class TablesOpened:
    """The tables the director of ``tournament_id`` asked for are open (or could not
    be): tell it (``TournamentDesk.tables_opened``), and carry out what it asks next."""

    tournament_id: str


# What a desk may ask of the lobby.
Request = OpenHeadToHead | OpenDailyAttempt | LiftEmbargo | OpenTable | ActOnTable | TablesOpened


@dataclass(slots=True)
class DeskResult:
    """One step of a desk: what it sends now, what it asks the lobby to do next, and,
    on a cluster's node, what the other nodes hear of (server/step.py, SharedNotes)."""

    outs: list[Outbound] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    # A cluster's node only (a desk that is ``shared``):
    placed: list[str] = field(default_factory=list)  # tournament tables opened here
    elsewhere: list[TableRequest] = field(default_factory=list)  # for tables on other nodes
    results: list[TableResult] = field(default_factory=list)  # tables' results, to the director
    waiting: set[str] = field(default_factory=set)  # whose wait changed (quick play)
    challenges: set[str] = field(default_factory=set)  # which challenges changed

    def add(self, other: DeskResult) -> DeskResult:
        """This result followed by ``other`` (in place; returns itself)."""
        self.outs += other.outs
        self.requests += other.requests
        self.events += other.events
        self.placed += other.placed
        self.elsewhere += other.elsewhere
        self.results += other.results
        self.waiting |= other.waiting
        self.challenges |= other.challenges
        return self
