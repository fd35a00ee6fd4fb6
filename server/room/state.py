"""The plain data a room holds: its settings, seats, boards, the deal being played,
and what a bot seat thinking elsewhere is asked. No behaviour beyond reading it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from engine.cards import Card
from engine.deal import Deal
from engine.grid import CELLS, Grid, cell_name
from protocol.deals import PlacementOut
from protocol.fields import Pace, PlayerInfo, Visibility
from protocol.prepared import Prepared
from protocol.rooms import RoomOrigin
from server.fallback import CellChooser

TURNS = CELLS  # a deal places one card on each cell of the grid


@dataclass(frozen=True, slots=True)
class RoomSettings:
    name: str
    visibility: Visibility = Visibility.PUBLIC
    seats: int = 2
    pace: Pace = Pace.LOCKSTEP
    card_clock_ms: int = 30_000
    deal_clock_ms: int = 300_000
    best_of: int = 1  # deals in its series: best of 1, 3 or 5
    rated: bool = False
    origin: RoomOrigin = RoomOrigin.ROOM


class Ids(Protocol):
    """Fresh ids and secrets (server.lobby.IdSource)."""

    def match_id(self) -> str: ...

    def server_secret(self) -> str: ...


@dataclass(slots=True)
class Seat:
    player: PlayerInfo
    contribution: str
    ready: bool = False
    connected: bool = True
    away_since: int | None = None
    present: bool = True  # False after leaving during a match: the seat is kept
    bot: CellChooser | None = None
    strategy: str = ""  # a bot seat's strategy and seed, for bots that think elsewhere
    bot_seed: str = ""
    asked: int = 0  # the last turn this bot seat was asked to think about
    timed_out: bool = False  # away beyond the grace period: the server plays for it
    rematch: bool = False  # wants a rematch

    @property
    def receives(self) -> bool:
        return self.present and self.bot is None

    @property
    def autopilot(self) -> bool:
        """A person's seat the server plays: left the match, or away too long."""
        return self.bot is None and (self.timed_out or not self.present)


@dataclass(frozen=True, slots=True)
class Placement:
    turn: int
    cell: int
    card: Card
    elapsed_ms: int
    auto: bool

    def fields(self) -> tuple[int, str, str, bool, int]:
        """As :class:`protocol.prepared.ResultBoard` takes a placement."""
        return (self.turn, cell_name(self.cell), str(self.card), self.auto, self.elapsed_ms)

    def out(self) -> PlacementOut:
        return PlacementOut(
            turn=self.turn,
            cell=cell_name(self.cell),
            card=str(self.card),
            auto=self.auto,
            elapsed_ms=self.elapsed_ms,
        )


@dataclass(slots=True)
class Board:
    grid: Grid = field(default_factory=Grid)
    placements: list[Placement] = field(default_factory=list)
    card_at: int = 0  # when its current card was dealt
    dealt: int = 0  # the highest turn whose card this player has been sent
    # cards its player's own clock ran out on (the card or deal clock, or away):
    # placed by the fallback rule, not by the player (a rated deal's forfeit rule)
    clocked: int = 0

    @property
    def placed(self) -> int:
        return len(self.placements)

    @property
    def time_used_ms(self) -> int:
        return sum(p.elapsed_ms for p in self.placements)

    def cells(self) -> list[str | None]:
        return [str(c) if c is not None else None for c in self.grid]


@dataclass(slots=True)
class DealInPlay:
    """The deal being played in a room: one of its series' deals (the wire calls it a
    match: ``match_id``, ``match_started``, ``match_result``)."""

    id: str
    seed: str
    deal: Deal
    contributions: tuple[str, ...]
    started_at: int
    boards: dict[str, Board]
    turn: int = 1  # lockstep: the turn being played
    turn_started: int = 0
    result: Prepared | None = None  # the match_result sent, as its text (Prepared.of)


BotFactory = Callable[[str, str], CellChooser]
"""(strategy name, seed) -> cell chooser; raises KeyError for an unknown strategy."""


@dataclass(frozen=True, slots=True)
class BotTurn:
    """A bot seat holds a card: what its strategy needs to choose a cell, and whose turn
    it is to the queue of moves (server.bot_queue); nothing more.

    A room built with ``think_elsewhere`` asks for its bots' moves this way
    (in :class:`~server.room.result.RoomResult`) instead of calling their choosers; the answer comes
    back through :meth:`Room.bot_move`.
    """

    room_id: str
    player_id: str
    strategy: str
    seed: str  # the seat's seed: with the position, the same move whoever computes it
    turn: int
    placements: tuple[tuple[int, str], ...]  # the bot's own grid: (cell, card) in order
    card: str
    person: bool = False  # a person plays in the room (server.bot_queue: such moves go first)
    owner: str = ""  # whose bot it is: set by the lobby (Lobby.bot_owner)
