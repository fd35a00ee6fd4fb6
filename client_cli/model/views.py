"""The value types of the client-side model: which screen, the connection, clocks,
the match as this player knows it, a challenge, a tournament, the quick-play wait.

Each is plain data read by both front ends; none does I/O or reads the clock
(a monotonic ``now`` is passed in).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from client_cli.model.text import match_terms
from engine import Card, Grid, parse_cell
from engine.verification import Verification
from protocol.deals import MatchResult, PlacementOut, Progress
from protocol.fields import Pace, PlayerInfo
from protocol.head_to_head import ChallengeInfo
from protocol.tournaments import (
    TournamentEntrant,
    TournamentInfo,
    TournamentStanding,
    TournamentTable,
)


class View(StrEnum):
    """Which main screen the model calls for."""

    SIGN_IN = "sign_in"
    LOBBY = "lobby"
    ROOM = "room"
    GAME = "game"
    RESULTS = "results"
    TOURNAMENT = "tournament"


class Connection(StrEnum):
    OFFLINE = "offline"
    REFUSED = "refused"  # the server answered, and refused the sign-in
    CONNECTING = "connecting"
    ONLINE = "online"
    RECONNECTING = "reconnecting"


@dataclass(frozen=True)
class Clock:
    """A countdown: ``remaining_ms`` at monotonic time ``at``."""

    remaining_ms: int
    at: float

    def left_ms(self, now: float) -> int:
        return max(0, self.remaining_ms - int((now - self.at) * 1000))


@dataclass(frozen=True)
class PlayerProgress:
    player: PlayerInfo
    placed: int
    state: str  # "placed", "thinking", "done", "disconnected", "ready", "not ready"
    me: bool
    # A race: what is left of the deal clock while this player still places, and the
    # time it used once its board is full (as far as this client could tell).
    clock_ms: int | None = None
    used_ms: int | None = None


@dataclass
class MatchView:
    """The current (or last) match of the room, as this player knows it."""

    match_id: str
    pace: Pace
    seed_commitment: str
    contributions: list[str]
    card_clock_ms: int
    deal_clock_ms: int
    cells: list[str | None] = field(default_factory=lambda: [None] * 16)
    placements: list[PlacementOut] = field(default_factory=list)
    received: dict[int, str] = field(default_factory=dict)  # turn -> card dealt to me
    turn: int | None = None
    card: str | None = None
    legal: list[str] = field(default_factory=list)
    sent: int | None = None  # the turn whose placement is sent, not yet answered
    clock: Clock | None = None
    progress: Progress | None = None
    deal_clock: Clock | None = None  # a race: the deal's clock, as the last progress told it
    used_ms: dict[str, int] = field(default_factory=dict)  # a race: each full board's time
    result: MatchResult | None = None
    verification: Verification | None = None
    server_commitment: str = ""  # as published before the match
    deal: int = 1  # which deal of the series
    best_of: int = 1
    series_commitment: str = ""  # the room's commitment when the series began

    @property
    def placed_count(self) -> int:
        return sum(1 for c in self.cells if c is not None)

    def grid(self) -> Grid:
        return Grid.replay(
            (parse_cell(p.cell), Card.parse(p.card)) for p in sorted(self.placements, key=_turn)
        )


def _turn(p: PlacementOut) -> int:
    return p.turn


@dataclass(frozen=True)
class ChallengeView:
    """An open challenge, to or from this player, with its answer clock."""

    info: ChallengeInfo
    clock: Clock
    incoming: bool  # True: this player is challenged and may accept or decline

    @property
    def other(self) -> PlayerInfo:
        return self.info.challenger if self.incoming else self.info.opponent

    def terms(self) -> str:
        return match_terms(
            self.info.pace, self.info.deals, self.info.rated, self.info.card_clock_ms,
            self.info.deal_clock_ms,
        )  # fmt: skip


def entrant_count(info: TournamentInfo) -> int:
    """Who entered the draw: those still in and those knocked out (not the ones who
    withdrew or were removed)."""
    return sum(1 for e in info.entrants if e.status in ("active", "eliminated"))


def entrant_in(info: TournamentInfo, player_id: str | None) -> TournamentEntrant | None:
    return next((e for e in info.entrants if e.player.id == player_id), None)


def standing_in(info: TournamentInfo, player_id: str | None) -> TournamentStanding | None:
    return next((s for s in info.standings if s.player.id == player_id), None)


def table_in(info: TournamentInfo, player_id: str | None) -> TournamentTable | None:
    """The player's table in the current (or last) round of ``info``."""
    return next((t for t in info.tables if player_id in t.players), None)


@dataclass
class TournamentView:
    """A tournament as the server last told it, received at monotonic time ``at``."""

    info: TournamentInfo
    at: float
    # The tables of every round as last seen while it was current: a round's
    # points are only in the pushes made during it (the bracket shows them).
    tables: dict[int, list[TournamentTable]] = field(default_factory=dict)

    def round_left_ms(self, now: float) -> int | None:
        left = self.info.round_left_ms
        return None if left is None else Clock(left, self.at).left_ms(now)

    def next_round_ms(self, now: float) -> int | None:
        left = self.info.next_round_ms
        return None if left is None else Clock(left, self.at).left_ms(now)

    @property
    def over(self) -> bool:
        return self.info.status in ("finished", "cancelled")

    def entrant(self, player_id: str | None) -> TournamentEntrant | None:
        return entrant_in(self.info, player_id)

    def standing(self, player_id: str | None) -> TournamentStanding | None:
        return standing_in(self.info, player_id)

    def table_of(self, player_id: str | None) -> TournamentTable | None:
        """The player's table in the current (or last) round."""
        return table_in(self.info, player_id)

    def seeds(self) -> dict[str, int | None]:
        return {e.player.id: e.seed for e in self.info.entrants}

    def names(self) -> dict[str, PlayerInfo]:
        return {e.player.id: e.player for e in self.info.entrants}


@dataclass(frozen=True)
class Queued:
    """Waiting in the quick-play queue since monotonic time ``since``."""

    pace: Pace
    deals: int
    rating: int | None
    since: float
    bot_after_ms: int | None = None

    def waited_s(self, now: float) -> int:
        return max(0, int(now - self.since))
