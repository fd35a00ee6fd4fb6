"""Versioned migrations, one list for both engines, recorded in ``schema_migrations``.

Each migration has a number, a name and what it does, in the SQL both engines
share (:mod:`server.storage.schema`); :func:`migrate` applies, in order, those a
database has not had, each recording its number in ``schema_migrations``, all
in the transaction that opens the store: a start either brings the database to
the latest version or changes nothing. Several servers starting at once on one
PostgreSQL database take turns (:meth:`Tx.lock_schema`). A database of a later
version than this server knows is refused, not written.

A new migration is appended here with the next number; a migration once
released is never edited (databases that have had it will not have it again).
docs/operations.md, *Migrations*, says how an operator sees and runs them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from server.storage import legacy, schema
from server.storage.quarantine import QUARANTINE_VERSION
from server.storage.sql import Tx


class SchemaTooNew(Exception):
    """The database was migrated by a later version of the server."""


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    apply: Callable[[Tx], None]


def _run(script: str) -> Callable[[Tx], None]:
    def apply(tx: Tx) -> None:
        for statement in schema.statements(script, tx.dialect):
            tx.execute(statement)

    return apply


def _baseline(tx: Tx) -> None:
    """Version 1: every table and index of the first versioned release. A SQLite
    database from before versions gets its missing columns first (storage.legacy)."""
    _run(schema.TABLES)(tx)
    if tx.dialect == "sqlite":
        legacy.upgrade(tx)
    _run(schema.INDEXES)(tx)


def _expect(tx: Tx) -> None:
    """Version 4: PostgreSQL checks a write's count of rows changed in the database
    (schema.EXPECT), so that a transaction's fences go with its commit. Nothing to do
    on SQLite, whose writer counts them."""
    if tx.dialect == "postgresql":
        tx.execute(schema.EXPECT)


# Whether matches has the column ranking, in each engine's catalogue.
_HAS_RANKING = {
    "sqlite": "SELECT 1 FROM pragma_table_info('matches') WHERE name = 'ranking'",
    "postgresql": "SELECT 1 FROM information_schema.columns"
    " WHERE table_schema = current_schema() AND table_name = 'matches'"
    " AND column_name = 'ranking'",
}


def _ranking(tx: Tx) -> None:
    """Version 5: matches.ranking (schema.RANKING); left as it is where the column is
    there already (a database this version made whose record of versions was lost)."""
    if not tx.fetchall(_HAS_RANKING[tx.dialect]):
        _run(schema.RANKING)(tx)


def _order_column(tx: Tx) -> None:
    """Version 7: the explicit order column ``seq`` on SQLite too (schema.sqlite_seq),
    left as it is where a table has it (a database whose record of versions was lost);
    PostgreSQL has had it from version 1."""
    if tx.dialect != "sqlite":
        return
    for table in schema.ORDERED:
        if not tx.fetchall(
            "SELECT 1 FROM pragma_table_info({table}) WHERE name = 'seq'", {"table": table}
        ):
            for statement in schema.sqlite_seq(table):
                tx.execute(statement)


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "baseline", _baseline),
    # IF NOT EXISTS: a SQLite file from before versions may have them already.
    Migration(2, "daily deal", _run(schema.DAILY)),
    Migration(3, "fences", _run(schema.FENCES)),  # a cluster's lease tokens (docs/scaling.md)
    Migration(4, "expected row counts", _expect),
    Migration(5, "rank notes", _ranking),  # replays say why a board ranks
    Migration(QUARANTINE_VERSION, "quarantine", _run(schema.QUARANTINE)),  # games set aside
    Migration(7, "order column", _order_column),  # seq on both engines, no rowid
)

LATEST = MIGRATIONS[-1].version

_TABLE = (
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    " version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_ms BIGINT NOT NULL)"
)


def applied(tx: Tx) -> list[int]:
    return [r["version"] for r in tx.fetchall("SELECT version FROM schema_migrations")]


def migrate(tx: Tx, migrations: tuple[Migration, ...] = MIGRATIONS, *, at_ms: int) -> list[int]:
    """Apply the migrations the database has not had, each recorded as applied at
    ``at_ms`` (the time the store is opened, its opener's); the versions applied."""
    tx.lock_schema()
    tx.execute(_TABLE)
    have = set(applied(tx))
    known = {m.version for m in migrations}
    if have - known:
        raise SchemaTooNew(
            f"the database is at schema version {max(have)}, made by a later cribsquares;"
            f" this one knows versions up to {max(known, default=LATEST)}"
        )
    done = []
    for migration in migrations:
        if migration.version in have:
            continue
        migration.apply(tx)
        tx.execute(
            "INSERT INTO schema_migrations (version, name, applied_ms)"
            " VALUES ({version}, {name}, {at_ms})",
            {
                "version": migration.version,
                "name": migration.name,
                "at_ms": at_ms,
            },
        )
        done.append(migration.version)
    return done
