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
deleting a player makes the database look for it in every table that refers
to players, the placements among them, which have no index by player. Each
reference a deletion does check goes through an index (``matches_room``,
``series_room``, ``rooms_created``: server.storage.schema).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from server.storage.sql import Tx

_ROOMS = """
SELECT id FROM rooms r WHERE r.created_ms < {before}
  AND NOT EXISTS (SELECT 1 FROM matches m WHERE m.room_id = r.id)
  AND NOT EXISTS (SELECT 1 FROM series s WHERE s.room_id = r.id)
LIMIT {limit}
"""
_TOURNAMENTS = """
SELECT id FROM tournaments t
WHERE t.status = 'cancelled' AND t.started_ms IS NULL AND t.finished_ms < {before}
LIMIT {limit}
"""


@dataclass(slots=True)
class Prune:
    """Delete up to ``limit`` rooms never played and as many tournaments never
    started, older than ``before_ms``; ``deleted`` says how many went."""

    before_ms: int
    limit: int = 500
    deleted: dict[str, int] = field(default_factory=dict)


def apply(tx: Tx, prune: Prune) -> None:
    """Carry out ``prune`` inside the writer's transaction."""
    older = {"before": prune.before_ms, "limit": prune.limit}
    rooms = [{"id": r["id"]} for r in tx.fetchall(_ROOMS, older)]
    if rooms:
        tx.executemany("DELETE FROM rooms WHERE id = {id}", rooms)
    tournaments = [{"id": t["id"]} for t in tx.fetchall(_TOURNAMENTS, older)]
    if tournaments:
        for table, column in (("tournament_entries", "tournament_id"),
                              ("tournament_snapshots", "tournament_id"),
                              ("tournaments", "id")):  # fmt: skip
            tx.executemany(f"DELETE FROM {table} WHERE {column} = {{id}}", tournaments)
    prune.deleted = {"rooms": len(rooms), "tournaments": len(tournaments)}
