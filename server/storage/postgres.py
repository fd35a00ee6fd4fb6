"""The PostgreSQL backend: ``cribsquares serve --store postgresql://user@host:port/db``.

psycopg 3, for both sides of the storage: its synchronous connection on the
writer's thread (so that the writer works as it does on SQLite: a whole batch
in one trip to the thread, one transaction, one commit; the writes whose row
counts nobody reads are held and sent together, a transaction of them only in
two trips (:class:`PostgresTx`); a long run of placements is one ``COPY``, an
``executemany`` of an ``INSERT`` one multi-row ``INSERT``, any other
``executemany`` runs in libpq's pipeline mode) and its
asynchronous one for the readers, on the event loop, from a pool (psycopg_pool)
of up to :data:`READERS` connections, so that one slow read (a long history)
does not hold up every sign-in behind it.

Acknowledged means committed: the writer's session has ``synchronous_commit =
on`` whatever the server's default, so a commit has reached the WAL on disk
before the future resolves. ``lock_timeout`` of 5 s: a write waiting on a lock
another program holds fails as a failure that can pass (and is retried) as
SQLite's busy timeout does. A connection lost (the server restarted, the
network) is a failure that can pass too; the next try opens a new one.

The SQL is the storage's shared SQL, its named parameters marked as psycopg
binds them (``%(name)s``; a literal ``%`` doubled, as psycopg reads the rest);
the tables read in insertion order have the same explicit ``seq`` column on both
engines.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator, Sequence
from typing import Any, cast

import psycopg
import psycopg.adapt
from psycopg import errors
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from server.storage.schema import EXPECT_FUNCTION, EXPECTATION
from server.storage.sql import NO_ARGS, Args, Row, parts

INSERT_ROWS = 200  # rows of one multi-row INSERT at most (a statement's parameters)
_SCHEMA_LOCK = 0x637269625F7371  # pg_advisory_xact_lock's key for migrations ("crib_sq")
SESSION = ("SET synchronous_commit = on", "SET lock_timeout = '5s'")
READERS = 4  # the readers' connections at most (one is opened at start)
HELD_ROWS = 2  # a run of at most this many rows is bound on the client and held, else COPY


@functools.lru_cache(maxsize=4096)
def marked(sql: str) -> str:
    """The storage's SQL as psycopg binds it: each ``{name}`` as ``%(name)s``, and a
    literal ``%`` doubled."""
    return "".join(
        literal.replace("%", "%%") + (f"%({name})s" if name else "") for literal, name in parts(sql)
    )


class _BoolAsInt(psycopg.adapt.Dumper):
    """Truth values are 0/1 integers in the shared schema, as on SQLite."""

    oid = psycopg.adapters.types["int8"].oid

    def dump(self, obj: Any) -> bytes:
        return b"1" if obj else b"0"


def _adapt(conn: psycopg.Connection[Any] | psycopg.AsyncConnection[Any]) -> None:
    conn.adapters.register_dumper(bool, _BoolAsInt)


class PostgresTx:
    """One transaction on the writer's connection, in as few trips to the server as
    it can. The writes nobody reads a count of (:meth:`write`, :meth:`expect`, short
    runs of :meth:`append` and multi-row ``INSERT``) are bound on the client, by
    psycopg's own quoting, and held; they go to the server, several statements in
    one query, with the next statement that must run at once, or at the commit. A
    transaction of held writes only (a few placements and their fences: the bulk of
    the traffic) is two trips: ``BEGIN`` and its writes in one query, then
    ``COMMIT``, where ``BEGIN``, each statement and ``COMMIT`` were one each. The
    ``COMMIT`` stays a trip of its own: only a writer that saw every write succeed
    sends it, so a server killed while its writes wait on a lock commits nothing."""

    dialect = "postgresql"

    def __init__(self, conn: psycopg.Connection[Row]) -> None:
        self._conn = conn
        self._client = psycopg.ClientCursor(conn)
        self._held: list[str] = []
        self._expected: list[Exception] = []  # the failures of the expect()s, by index
        self.begun = False  # BEGIN sent: the transaction is open on the server

    def write(self, sql: str, args: Args = NO_ARGS) -> None:
        self._held.append(self._client.mogrify(marked(sql), args))

    def expect(self, sql: str, args: Args, rows: int, failure: Exception) -> None:
        # The count is checked in the database (migration 4), so that it can be held.
        self._expected.append(failure)
        self._held.append(
            f"WITH changed AS ({self._client.mogrify(marked(sql), args)} RETURNING 1)"
            f" SELECT {EXPECT_FUNCTION}((SELECT count(*) FROM changed),"
            f" {int(rows)}, {len(self._expected) - 1})"
        )

    def execute(self, sql: str, args: Args = NO_ARGS) -> int:
        self._now()
        return self._conn.execute(marked(sql), args).rowcount

    def executemany(self, sql: str, rows: Sequence[Args]) -> None:
        self._now()
        with self._conn.cursor() as cur:
            cur.executemany(marked(sql), rows)

    def insert(
        self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]],
        *, skip_existing: bool = False,
    ) -> None:  # fmt: skip
        # One statement of many rows (a match's seats, its results), held.
        head = f"INSERT INTO {table} ({', '.join(columns)}) VALUES "
        row = "(" + ", ".join(["%s"] * len(columns)) + ")"
        tail = " ON CONFLICT DO NOTHING" if skip_existing else ""
        for start in range(0, len(rows), INSERT_ROWS):
            part = rows[start : start + INSERT_ROWS]
            values = [v for r in part for v in r]
            self._held.append(
                self._client.mogrify(head + ", ".join([row] * len(part)) + tail, values)
            )

    def append(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        if len(rows) <= HELD_ROWS:  # held, as one multi-row INSERT
            self.insert(table, columns, rows)
            return
        # A longer run by COPY, at once: binding it on the client costs more than the
        # trips it saves (batches of 8: about 60 against 45 µs a placement, docs/scaling.md).
        self._now()
        sql = f"COPY {table} ({', '.join(columns)}) FROM STDIN"
        with self._conn.cursor() as cur, cur.copy(sql) as copy:
            for row in rows:
                copy.write_row(row)

    def fetchall(self, sql: str, args: Args = NO_ARGS) -> list[Row]:
        self._now()
        return self._conn.execute(marked(sql), args).fetchall()

    @contextlib.contextmanager
    def savepoint(self) -> Iterator[None]:
        self._now()
        self._conn.execute("SAVEPOINT statement_group")
        try:
            yield
            self._send()  # what the group holds fails inside it
        except BaseException:
            self._held.clear()
            self._conn.execute("ROLLBACK TO SAVEPOINT statement_group")
            self._conn.execute("RELEASE SAVEPOINT statement_group")
            raise
        self._conn.execute("RELEASE SAVEPOINT statement_group")

    def lock_schema(self) -> None:
        self._now()
        self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))

    def commit(self) -> None:
        """Send what is held, and commit (nothing if nothing was written)."""
        if self.begun or self._held:
            self._now()
            self._conn.execute("COMMIT")

    def _now(self) -> None:
        """Before a statement that must run at once: the transaction open on the
        server, with what is held."""
        if not self.begun:
            self._held.insert(0, "BEGIN")
            self.begun = True
        self._send()

    def _send(self) -> None:
        if not self._held:
            return
        query = ";\n".join(self._held)
        self._held.clear()
        try:
            self._client.execute(query)
        except psycopg.DatabaseError as exc:
            if exc.sqlstate == EXPECTATION and exc.diag.message_detail is not None:
                raise self._expected[int(exc.diag.message_detail)] from exc
            raise


class PostgresWriter:
    def __init__(self, url: str) -> None:
        self._url = url
        self._conn: psycopg.Connection[Row] | None = None
        self._connect()

    def _connect(self) -> psycopg.Connection[Row]:
        if self._conn is not None:
            with contextlib.suppress(Exception):
                self._conn.close()
            self._conn = None
        conn = psycopg.connect(self._url, autocommit=True, row_factory=dict_row)
        _adapt(conn)
        for statement in SESSION:
            conn.execute(statement)
        self._conn = cast(psycopg.Connection[Row], conn)
        return self._conn

    @contextlib.contextmanager
    def transaction(self) -> Iterator[PostgresTx]:
        conn = self._conn
        if conn is None or conn.closed or conn.broken:
            conn = self._connect()
        tx = PostgresTx(conn)
        try:
            yield tx
            tx.commit()
        except BaseException:
            if tx.begun and not conn.broken:
                with contextlib.suppress(psycopg.Error):
                    conn.execute("ROLLBACK")
            raise

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()


class PostgresReader:
    dialect = "postgresql"
    schema_errors: tuple[type[Exception], ...] = (errors.UndefinedColumn, errors.UndefinedTable)

    def __init__(self, pool: AsyncConnectionPool[psycopg.AsyncConnection[Row]]) -> None:
        self._pool = pool

    @classmethod
    async def open(cls, url: str) -> PostgresReader:
        # One connection first, on its own: a server that cannot be reached says why in
        # libpq's words (the pool would only time out).
        first = await psycopg.AsyncConnection.connect(url)
        await first.close()
        pool: AsyncConnectionPool[psycopg.AsyncConnection[Row]] = AsyncConnectionPool(
            url,
            min_size=1,
            max_size=READERS,
            kwargs={"autocommit": True, "row_factory": dict_row},
            configure=_configure,
            open=False,
            name="cribsquares-readers",
        )
        await pool.open(wait=True)
        return cls(pool)

    async def fetch(self, sql: str, args: Args = NO_ARGS) -> list[Row]:
        query = marked(sql)
        for attempt in range(READERS + 1):
            async with self._pool.connection() as conn:
                try:
                    cur = await conn.execute(query, args)
                    return await cur.fetchall()
                except psycopg.OperationalError:
                    # The server went away since this connection's last read (restarted):
                    # the pool drops it; the next one may be as old, or new.
                    if not conn.broken or attempt == READERS:
                        raise
        raise AssertionError("unreachable")

    async def close(self) -> None:
        await self._pool.close()


async def _configure(conn: psycopg.AsyncConnection[Any]) -> None:
    _adapt(conn)


class PostgresBackend:
    dialect = "postgresql"

    def __init__(self, url: str) -> None:
        self.url = url
        info = psycopg.conninfo.conninfo_to_dict(url)
        # Never the password: the first line and the logs name the database and its host.
        self.where = f"{info.get('dbname', '')} on {info.get('host', 'localhost')}" + (
            f":{info['port']}" if info.get("port") else ""
        )

    def open_writer(self) -> PostgresWriter:
        return PostgresWriter(self.url)

    async def open_reader(self) -> PostgresReader:
        return await PostgresReader.open(self.url)

    def passing(self, exc: BaseException) -> bool:
        # Class 08 (connection), 53 (resources: disk full), 55P03 (lock timeout), 57
        # (the server shutting down or starting) are OperationalError; a serialization
        # failure or deadlock is worth another try too, and so is a read-only server
        # (a standby being promoted).
        return isinstance(
            exc,
            psycopg.OperationalError
            | psycopg.InterfaceError
            | errors.TransactionRollback
            | errors.ReadOnlySqlTransaction,
        )

    def unique_violation(self, exc: BaseException) -> bool:
        if not isinstance(exc, errors.UniqueViolation):
            return False
        constraint = exc.diag.constraint_name or ""
        return not constraint.endswith("_pkey")

    def describe(self, exc: BaseException) -> str:
        code = getattr(exc, "sqlstate", None)
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return f"{text} [{code}]" if code else f"{type(exc).__name__}: {text}"
