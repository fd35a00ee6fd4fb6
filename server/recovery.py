"""What a restarted server needs to resume the series and tournaments that were being played.

The storage layer reads these from the database (:meth:`Storage.unfinished`);
:func:`server.room.restore.restore` rebuilds a room from one. Nothing here does
I/O or decides anything: it is the shape of the stored facts.

A series is resumable when its room, its players, every begun deal's seed and
the root its deal secrets follow from are stored. Every placement that was acknowledged
is in the database (it is committed before the ``placed`` goes out), so the
rebuilt boards hold at least every acknowledged placement.

A tournament is resumable when its director's latest snapshot is stored
(:class:`ResumableTournament`); it is written in the same transaction as the
table events it reflects, so it agrees with the stored series of its tables.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from server.events import PlayerRecord


class Unresumable(ValueError):
    """What a restore refuses by design: the stored facts cannot make the game again
    (docs/operations.md, *When a restart cannot resume a game*, lists each). Only
    these abandon a game at a restart; any other exception sets it aside untouched."""


@dataclass(frozen=True, slots=True)
class StoredPlacement:
    player_id: str
    turn: int
    cell: str
    card: str
    elapsed_ms: int
    auto: bool
    placed_ms: int


@dataclass(frozen=True, slots=True)
class StoredDeal:
    match_id: str
    deal: int
    seed: str
    contributions: tuple[str, ...]
    started_ms: int
    finished: bool
    # Finished deals: player id -> (rank, score, time used).
    outcomes: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    placements: tuple[StoredPlacement, ...] = ()  # unfinished deal: in placing order


@dataclass(frozen=True, slots=True)
class Resumable:
    room_id: str
    name: str
    visibility: str
    invite_code: str | None
    pace: str
    seats: int
    card_clock_ms: int
    deal_clock_ms: int
    deals_best_of: int
    rated: bool
    origin: str
    creator_id: str
    series_id: str
    root_secret: str
    players: tuple[PlayerRecord, ...]  # seat order
    deals: tuple[StoredDeal, ...]  # in order; the last may be unfinished
    forfeited: tuple[str, ...]  # in the order they left
    timed_out: frozenset[str]
    secret_scheme: str = "chain"  # how the deal secrets follow from root_secret
    embargo: str | None = None  # a tournament round's embargo group
    embargo_lifted: bool = False
    # Each seat's server bot as stored with the series (SeriesBegan.seat_bots): (level,
    # seed), ("", "") for a person or a bot program; () for no server bot at all.
    seat_bots: tuple[tuple[str, str], ...] = ()

    @property
    def last_activity_ms(self) -> int:
        """The last moment the database saw this series move: a stand-in for the crash."""
        times = [d.started_ms for d in self.deals]
        times += [p.placed_ms for d in self.deals for p in d.placements]
        return max(times)


@dataclass(frozen=True, slots=True)
class ResumableTournament:
    tournament_id: str
    state: dict[str, Any] | None  # the director's snapshot; None: none stored (an older version)
    saved_ms: int  # when the snapshot was taken


@dataclass(frozen=True, slots=True)
class StoredTable:
    """A tournament table's stored series, for a restarted director to catch up on:
    each finished deal's scores in deal order, whether the series is over, its winner."""

    deals: tuple[dict[str, int], ...]
    finished: bool
    winner_id: str | None
