"""Domain events: what a room decided, for the storage layer to persist.

Rooms append these as they change; the WebSocket handler hands them to
:class:`server.storage.Storage`, which writes them and nothing else. Times are
wall-clock milliseconds since the epoch, as the room was told them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    id: str
    name: str
    guest: bool = False
    bot: bool = False


@dataclass(frozen=True, slots=True)
class RoomOpened:
    room_id: str
    name: str
    visibility: str
    pace: str
    seats: int
    card_clock_ms: int
    deal_clock_ms: int
    creator_id: str
    server_commitment: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class MatchBegan:
    match_id: str
    room_id: str
    pace: str
    players: tuple[tuple[int, PlayerRecord, str], ...]  # (seat, player, contribution)
    seed: str
    server_secret: str
    seed_commitment: str
    server_commitment: str
    card_clock_ms: int
    deal_clock_ms: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class CardPlaced:
    match_id: str
    player_id: str
    turn: int
    cell: str
    card: str
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
    cells: tuple[str, ...]
    detail: dict[str, object]  # engine BoardScore.to_dict()


@dataclass(frozen=True, slots=True)
class MatchEnded:
    match_id: str
    starter: str
    outcomes: tuple[BoardOutcome, ...]
    at_ms: int


Event = RoomOpened | MatchBegan | CardPlaced | MatchEnded
