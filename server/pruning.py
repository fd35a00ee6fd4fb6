"""Forgetting what a flood leaves in the database and nobody will ever read.

A :class:`Prune` goes through the storage writer like any event (so it is
ordered with every write before and after it) and deletes, in one chunk of at
most ``limit`` rows of each kind, older than its cut-off:

* rooms in which no deal was ever played (a waiting room closes after an hour,
  ``ServerConfig.waiting_room_ttl_ms``, so none of these is still open: the
  config check keeps the cut-off past it);
* tournaments cancelled before their first round, with their entries and
  snapshot (a tournament over is forgotten by the server 10 minutes after).

Everything that was played stays. Guest players who never played are kept:
deleting a player makes SQLite look for it in every table that refers to
players, the placements among them, which have no index by player.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

# Each reference a deletion checks goes through an index.
INDEXES = """
CREATE INDEX IF NOT EXISTS matches_room ON matches (room_id);
CREATE INDEX IF NOT EXISTS series_room ON series (room_id);
CREATE INDEX IF NOT EXISTS rooms_created ON rooms (created_ms);
"""

_ROOMS = """
SELECT id FROM rooms r WHERE r.created_ms < ?
  AND NOT EXISTS (SELECT 1 FROM matches m WHERE m.room_id = r.id)
  AND NOT EXISTS (SELECT 1 FROM series s WHERE s.room_id = r.id)
LIMIT ?
"""
_TOURNAMENTS = """
SELECT id FROM tournaments t
WHERE t.status = 'cancelled' AND t.started_ms IS NULL AND t.finished_ms < ?
LIMIT ?
"""


@dataclass(slots=True)
class Prune:
    """Delete up to ``limit`` rooms never played and as many tournaments never
    started, older than ``before_ms``; ``deleted`` says how many went."""

    before_ms: int
    limit: int = 500
    deleted: dict[str, int] = field(default_factory=dict)


def init(db: sqlite3.Connection) -> None:
    db.executescript(INDEXES)


def apply(db: sqlite3.Connection, prune: Prune) -> None:
    """Carry out ``prune`` inside the writer's transaction."""
    rooms = [(r,) for (r,) in db.execute(_ROOMS, (prune.before_ms, prune.limit))]
    db.executemany("DELETE FROM rooms WHERE id = ?", rooms)
    tournaments = [(t,) for (t,) in db.execute(_TOURNAMENTS, (prune.before_ms, prune.limit))]
    for table, column in (("tournament_entries", "tournament_id"),
                          ("tournament_snapshots", "tournament_id"),
                          ("tournaments", "id")):  # fmt: skip
        db.executemany(f"DELETE FROM {table} WHERE {column} = ?", tournaments)
    prune.deleted = {"rooms": len(rooms), "tournaments": len(tournaments)}
