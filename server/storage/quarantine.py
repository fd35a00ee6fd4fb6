"""Games a restart set aside: what this release could not resume, left untouched.

At a start (or a cluster node taking over), a tournament or a series whose restore
raised anything but one of its documented refusals (server.recovery.Unresumable,
which abandon it) is neither resumed nor abandoned: it stays as stored, and one
row of ``quarantine`` says which release set it aside and why. A later start that
resumes it deletes its row. ``cribsquares quarantined`` lists the rows
(docs/operations.md, *When a restart cannot resume a game*).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from server.storage.sql import Reader, Tx

TOURNAMENT = "tournament"
QUARANTINE_VERSION = 6  # the migration that made the table (server.storage.migrations)
SERIES = "series"


@dataclass(frozen=True, slots=True)
class SetAside:
    """``id`` (a tournament's or a series') could not be resumed by ``release``."""

    kind: str  # TOURNAMENT or SERIES
    id: str
    release: str
    reason: str  # the exception, one line
    at_ms: int


@dataclass(frozen=True, slots=True)
class Resumed:
    """``id``, set aside before, was resumed: its row goes."""

    kind: str
    id: str


def apply(db: Tx, write: object) -> bool:
    """Write ``write`` if it is the quarantine's; False if it is not."""
    match write:
        case SetAside():
            db.write(
                "INSERT INTO quarantine (kind, id, release, reason, at_ms)"
                " VALUES ({kind}, {id}, {release}, {reason}, {at_ms})"
                " ON CONFLICT (kind, id) DO UPDATE"
                " SET release = excluded.release, reason = excluded.reason, at_ms = excluded.at_ms",
                {
                    "kind": write.kind,
                    "id": write.id,
                    "release": write.release,
                    "reason": write.reason,
                    "at_ms": write.at_ms,
                },
            )
        case Resumed():
            db.write(
                "DELETE FROM quarantine WHERE kind = {kind} AND id = {id}",
                {"kind": write.kind, "id": write.id},
            )
        case _:
            return False
    return True


async def listed(db: Reader) -> list[dict[str, Any]]:
    """Every game set aside, oldest first: kind, id, release, reason, at_ms. Nothing in
    a store no release that sets games aside has started: its schema is older than the
    quarantine's migration, which such a release applies before it resumes anything."""
    try:
        rows = await db.fetch(
            "SELECT kind, id, release, reason, at_ms FROM quarantine ORDER BY at_ms, kind, id"
        )
    except db.schema_errors:
        # A store of ours, only older (this raises again if it is not one of ours)?
        versions = await db.fetch("SELECT max(version) AS latest FROM schema_migrations")
        if (versions[0]["latest"] or 0) >= QUARANTINE_VERSION:
            raise
        return []
    return [dict(row) for row in rows]
