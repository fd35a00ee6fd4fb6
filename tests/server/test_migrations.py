"""One schema, one list of migrations, two engines: what a database goes through at start."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from server.storage import Storage, migrations, schema
from server.storage.backends import backend_for
from tests.server.stores import StoreUnderTest
from tests.services import postgres

DATA = Path(__file__).parent / "data"


async def test_a_database_made_before_versions_migrates_up_and_plays_on(tmp_path: Path) -> None:
    """A SQLite file as the server made it before schema_migrations (a dump of one, with
    a series being played against a bot seat) opens, is migrated, and resumes."""
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as db:
        db.executescript((DATA / "storage_before_versions.sql").read_text())
        assert not db.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'schema_migrations'"
        ).fetchall()
    storage = await Storage.open(path, opened_ms=0)
    (saved,) = await storage.unfinished()
    assert saved.seat_bots[1][0] == "fallback"
    (deal,) = saved.deals
    # Every placement of the dump (alice's three, the bot's four: it is dealt ahead).
    assert sorted((p.player_id, p.turn) for p in deal.placements) == [
        *(("bot-fallback-1", t) for t in (1, 2, 3, 4)),
        *(("id-alice", t) for t in (1, 2, 3)),
    ]
    assert (await storage.find_player("ALICE"))["id"] == "id-alice"  # type: ignore[index]
    assert (await storage.find_player("bob"))["id"] == "p-bob"  # type: ignore[index]
    await storage.close()
    with sqlite3.connect(path) as db:
        versions = db.execute("SELECT version, name FROM schema_migrations").fetchall()
    assert versions == [(m.version, m.name) for m in migrations.MIGRATIONS]


async def test_migrations_are_applied_once_and_a_later_schema_is_refused(
    store: StoreUnderTest,
) -> None:
    for _ in range(2):
        storage = await Storage.open(store.target, opened_ms=0)
        await storage.close()
    rows = store.rows("SELECT version FROM schema_migrations ORDER BY version")
    assert [v for (v,) in rows] == [m.version for m in migrations.MIGRATIONS]
    store.execute(
        "INSERT INTO schema_migrations (version, name, applied_ms) VALUES ({v}, {name}, 0)",
        {"v": migrations.LATEST + 1, "name": "from the future"},
    )
    with pytest.raises(migrations.SchemaTooNew, match="later cribsquares"):
        await Storage.open(store.target, opened_ms=0)


async def test_a_new_migration_runs_on_both_engines_in_the_opening_transaction(
    store: StoreUnderTest,
) -> None:
    storage = await Storage.open(store.target, opened_ms=0)
    await storage.close()
    later = (
        *migrations.MIGRATIONS,
        migrations.Migration(
            migrations.LATEST + 1,
            "notes",
            lambda tx: tx.execute("CREATE TABLE notes (id TEXT PRIMARY KEY, at_ms BIGINT)"),
        ),
        migrations.Migration(migrations.LATEST + 2, "broken", lambda tx: tx.execute("NOT SQL")),
    )
    writer = backend_for(store.target).open_writer()
    try:
        with pytest.raises(Exception, match=r"(?i)syntax"), writer.transaction() as tx:
            migrations.migrate(tx, later, at_ms=0)
        # All or nothing: the migration before the broken one is undone with it.
        with writer.transaction() as tx:
            assert migrations.applied(tx) == [m.version for m in migrations.MIGRATIONS]
            assert migrations.migrate(tx, later[:-1], at_ms=0) == [migrations.LATEST + 1]
            tx.execute("INSERT INTO notes (id, at_ms) VALUES ({id}, {at})", {"id": "n", "at": 1})
    finally:
        writer.close()
    assert store.rows("SELECT id, at_ms FROM notes") == [("n", 1)]


async def test_both_engines_get_the_same_tables_and_columns(
    tmp_path: Path, postgres_cluster: postgres.Cluster
) -> None:
    """The one schema: a fresh SQLite file and a fresh PostgreSQL database hold the same
    tables with the same columns, in the same order, the explicit order column ``seq``
    of the tables read in insertion order included."""
    lite = tmp_path / "fresh.db"
    name = postgres_cluster.create_database()
    try:
        for target in (str(lite), postgres_cluster.url(name)):
            await (await Storage.open(target, opened_ms=0)).close()
        with sqlite3.connect(lite) as db:
            tables = [t for (t,) in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )]  # fmt: skip
            on_sqlite = {t: [c[1] for c in db.execute(f"PRAGMA table_info({t})")] for t in tables}
        pg = StoreUnderTest("postgresql", postgres_cluster.url(name))
        on_postgres: dict[str, list[str]] = {}
        for table, column in pg.rows(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = 'public' ORDER BY table_name, ordinal_position"
        ):
            on_postgres.setdefault(table, []).append(column)
        assert on_postgres == on_sqlite
        made = [
            s
            for script in (schema.TABLES, schema.DAILY, schema.FENCES, schema.QUARANTINE)
            for s in schema.statements(script, "sqlite")
            if s.startswith("CREATE TABLE")
        ]
        assert len(on_sqlite) == len(made) + 1  # and schema_migrations
        seq_tables = {t for (t,) in pg.rows(
            "SELECT table_name FROM information_schema.columns WHERE column_name = 'seq'"
        )}  # fmt: skip
        assert seq_tables == set(schema.ORDERED)
        assert {t for t, columns in on_sqlite.items() if "seq" in columns} == seq_tables
    finally:
        postgres_cluster.drop_database(name)


async def test_sqlite_numbers_the_order_column_as_rows_were_and_are_inserted(
    tmp_path: Path,
) -> None:
    """Version 7 gives SQLite the explicit ``seq`` PostgreSQL has: the rows already
    there keep their insertion order, and each row inserted later is numbered after
    them, so that the same query (``ORDER BY created_ms, seq``) reads both engines."""
    db = tmp_path / "six.db"
    writer = backend_for(str(db)).open_writer()
    try:
        with writer.transaction() as tx:
            migrations.migrate(tx, migrations.MIGRATIONS[:6], at_ms=0)
            for pid in ("p-zed", "p-amy"):  # the same millisecond: insertion order decides
                tx.insert("players", ("id", "name", "created_ms"), [(pid, pid, 5)])
    finally:
        writer.close()
    await (await Storage.open(str(db), opened_ms=0)).close()
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO players (id, name, created_ms) VALUES ('p-bea', 'bea', 5)")
        order = conn.execute("SELECT id, seq FROM players ORDER BY created_ms, seq").fetchall()
        assert not conn.execute("SELECT 1 FROM players WHERE seq IS NULL").fetchall()
    assert [pid for pid, _ in order] == ["p-zed", "p-amy", "p-bea"]
    assert [seq for _, seq in order] == sorted(seq for _, seq in order)
