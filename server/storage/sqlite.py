"""The SQLite backend: the embedded default, one file.

The writer is plain ``sqlite3`` on the storage's writer thread, in autocommit
mode with explicit ``BEGIN``/``COMMIT`` (so that a migration's DDL is in the
same transaction as its data); the file is in WAL mode, which lets the readers
(``aiosqlite``) read while the writer writes. ``synchronous=NORMAL``: in WAL
mode a commit survives the process being killed (docs/operations.md).
"""

from __future__ import annotations

import contextlib
import functools
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, cast

import aiosqlite

from server.storage.sql import NO_ARGS, Args, Row, parts

# SQLite result codes of failures that can pass: retried until the write commits.
PASSING_FAILURES = (
    "SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_FULL", "SQLITE_IOERR", "SQLITE_READONLY",
    "SQLITE_CANTOPEN", "SQLITE_PROTOCOL", "SQLITE_NOMEM",
)  # fmt: skip


@functools.lru_cache(maxsize=4096)
def marked(sql: str) -> str:
    """The storage's SQL as ``sqlite3`` binds it: each ``{name}`` as ``:name``."""
    return "".join(literal + (f":{name}" if name else "") for literal, name in parts(sql))


@functools.lru_cache(maxsize=256)
def _insert(table: str, columns: tuple[str, ...], skip_existing: bool) -> str:
    conflict = " ON CONFLICT DO NOTHING" if skip_existing else ""
    marks = ", ".join("?" * len(columns))
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks}){conflict}"


class SqliteTx:
    dialect = "sqlite"

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def execute(self, sql: str, args: Args = NO_ARGS) -> int:
        return self._db.execute(marked(sql), args).rowcount

    def write(self, sql: str, args: Args = NO_ARGS) -> None:
        self._db.execute(marked(sql), args)

    def expect(self, sql: str, args: Args, rows: int, failure: Exception) -> None:
        if self._db.execute(marked(sql), args).rowcount != rows:
            raise failure

    def executemany(self, sql: str, rows: Sequence[Args]) -> None:
        self._db.executemany(marked(sql), rows)

    def insert(
        self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]],
        *, skip_existing: bool = False,
    ) -> None:  # fmt: skip
        self._db.executemany(_insert(table, tuple(columns), skip_existing), rows)

    def append(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        self.insert(table, columns, rows)

    def fetchall(self, sql: str, args: Args = NO_ARGS) -> list[Row]:
        return cast(list[Row], self._db.execute(marked(sql), args).fetchall())

    @contextlib.contextmanager
    def savepoint(self) -> Iterator[None]:
        self._db.execute("SAVEPOINT statement_group")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK TO statement_group")
            self._db.execute("RELEASE statement_group")
            raise
        self._db.execute("RELEASE statement_group")

    def lock_schema(self) -> None:
        # One server per file: the transaction's first write takes the file's lock.
        pass


class SqliteWriter:
    def __init__(self, path: str) -> None:
        db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA foreign_keys=ON")
        self._db = db

    @contextlib.contextmanager
    def transaction(self) -> Iterator[SqliteTx]:
        self._db.execute("BEGIN")
        try:
            yield SqliteTx(self._db)
            self._db.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(Exception):
                self._db.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self._db.close()


class SqliteReader:
    dialect = "sqlite"
    schema_errors: tuple[type[Exception], ...] = (sqlite3.OperationalError,)

    def __init__(self, db: aiosqlite.Connection) -> None:
        db.row_factory = aiosqlite.Row
        self._db = db

    @classmethod
    async def open(cls, path: str | Path, *, read_only: bool = False) -> SqliteReader:
        """``read_only``: the file as it is, never created nor written (the CLI's reads)."""
        if read_only:
            uri = Path(path).resolve().as_uri() + "?mode=ro"
            return cls(await aiosqlite.connect(uri, uri=True))
        return cls(await aiosqlite.connect(str(path)))

    async def fetch(self, sql: str, args: Args = NO_ARGS) -> list[Row]:
        async with self._db.execute(marked(sql), args) as cur:
            return cast(list[Row], list(await cur.fetchall()))

    async def close(self) -> None:
        await self._db.close()


class SqliteBackend:
    dialect = "sqlite"

    def __init__(self, path: str) -> None:
        self.path = path
        self.where = path

    def open_writer(self) -> SqliteWriter:
        return SqliteWriter(self.path)

    async def open_reader(self) -> SqliteReader:
        return await SqliteReader.open(self.path)

    def passing(self, exc: BaseException) -> bool:
        name = getattr(exc, "sqlite_errorname", None)
        return (
            isinstance(exc, sqlite3.OperationalError)
            and isinstance(name, str)
            and name.startswith(PASSING_FAILURES)
        )

    def unique_violation(self, exc: BaseException) -> bool:
        return (
            isinstance(exc, sqlite3.IntegrityError)
            and getattr(exc, "sqlite_errorname", None) == "SQLITE_CONSTRAINT_UNIQUE"
        )

    def describe(self, exc: BaseException) -> str:
        name: Any = getattr(exc, "sqlite_errorname", None)
        return f"{exc} [{name}]" if name else f"{type(exc).__name__}: {exc}"
