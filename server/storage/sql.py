"""What the storage's SQL runs on: one interface for both engines.

Every query of the storage package is written once, in the subset of SQL that
SQLite and PostgreSQL share, with **named parameters**: ``{name}`` where a value
goes, the values a mapping by name (:data:`Args`). Each backend
(:mod:`server.storage.sqlite`, :mod:`server.storage.postgres`) marks a parameter
as its driver binds one natively, ``:name`` for ``sqlite3``, ``%(name)s`` for
psycopg (:func:`parts` reads the text with Python's own format-string parser;
nothing is rewritten by pattern). Rows of a table are inserted through
:meth:`Tx.insert` and :meth:`Tx.append`, which name the table and its columns,
so that each engine builds its cheapest statement. A table read in insertion
order has an explicit ``seq`` column on both engines; no query names ``rowid``.
The writer's side is synchronous (:class:`Tx`: it runs on the thread that owns
the write connection, a whole batch in one trip); the readers' side is
asynchronous (:class:`Reader`). Rows are read by column name.

This module holds no SQL of its own and never decides what to store.
"""

from __future__ import annotations

import contextlib
import functools
import string
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol

Row = Mapping[str, Any]
Args = Mapping[str, Any]  # a query's parameters, by name
NO_ARGS: Args = {}


@functools.lru_cache(maxsize=4096)
def parts(sql: str) -> tuple[tuple[str, str | None], ...]:
    """``sql``'s literal text, each piece with the name of the parameter after it
    (None: the end), as Python's format-string parser reads ``{name}`` (``{{`` is a
    literal brace). A backend joins them with its driver's own marks."""
    found: list[tuple[str, str | None]] = []
    for literal, name, spec, conversion in string.Formatter().parse(sql):
        if spec or conversion or name == "" or (name is not None and not name.isidentifier()):
            raise ValueError(f"a query's parameter is {{name}}: {sql!r}")
        found.append((literal, name))
    return tuple(found)


def in_list(name: str, values: Sequence[Any]) -> tuple[str, dict[str, Any]]:
    """An ``IN (...)`` of ``values``: its text (``{name_0}, {name_1}``) and its args."""
    names = [f"{name}_{i}" for i in range(len(values))]
    return ", ".join(f"{{{n}}}" for n in names), dict(zip(names, values, strict=True))


class Tx(Protocol):
    """The write connection inside one transaction (the writer's thread only)."""

    dialect: str  # "sqlite" or "postgresql"

    def execute(self, sql: str, args: Args = NO_ARGS) -> int:
        """Run one statement; the number of rows it changed."""

    def write(self, sql: str, args: Args = NO_ARGS) -> None:
        """Run one statement whose row count nobody reads. An engine may hold it and
        send it with the next statement that must run at once, or at the commit
        (PostgreSQL: a transaction of such writes only is two trips to the server)."""

    def expect(self, sql: str, args: Args, rows: int, failure: Exception) -> None:
        """A write that must change ``rows`` rows: if it changes another number, the
        transaction raises ``failure`` (when the statement runs, or at the commit)
        and nothing of it is stored."""

    def executemany(self, sql: str, rows: Sequence[Args]) -> None:
        """One statement (not an ``INSERT``: :meth:`insert`) for each of ``rows``."""

    def insert(
        self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]],
        *, skip_existing: bool = False,
    ) -> None:  # fmt: skip
        """Add ``rows`` to ``table`` (values for ``columns``, in their order), as one
        statement an engine may hold like :meth:`write`; ``skip_existing``: a row whose
        key is taken is left out (``ON CONFLICT DO NOTHING``)."""

    def append(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        """Add ``rows`` to ``table`` (values for ``columns``): the bulk of the writes,
        so each engine's cheapest way (PostgreSQL: ``COPY`` for a long run)."""

    def fetchall(self, sql: str, args: Args = NO_ARGS) -> list[Row]: ...

    def savepoint(self) -> contextlib.AbstractContextManager[None]:
        """A statement group undone alone if it raises (the transaction goes on)."""

    def lock_schema(self) -> None:
        """Hold, until the transaction ends, the lock migrations take turns on."""


class Reader(Protocol):
    """A read connection (history, sign-in, what a restart resumes)."""

    dialect: str
    # Raised by a query naming a column an older schema lacks (a database read, not
    # migrated, by `cribsquares history`).
    schema_errors: tuple[type[Exception], ...]

    async def fetch(self, sql: str, args: Args = NO_ARGS) -> list[Row]: ...

    async def close(self) -> None: ...


class Writer(Protocol):
    """The write connection, owned by the writer's thread."""

    def transaction(self) -> contextlib.AbstractContextManager[Tx]:
        """One transaction: committed when the block ends, rolled back if it raises.
        A connection lost since the last one is opened again first."""

    def close(self) -> None: ...


class Backend(Protocol):
    """One engine: how to connect, and how to read its failures."""

    dialect: str
    where: str  # what the server's first line names: a file, or a database on a host

    def open_writer(self) -> Writer:
        """Connect the writer (on the writer's thread: it may block)."""

    async def open_reader(self) -> Reader: ...

    def passing(self, exc: BaseException) -> bool:
        """Is ``exc`` a failure of the database's surroundings, that a retry may get past?"""

    def unique_violation(self, exc: BaseException) -> bool:
        """Is ``exc`` a unique key taken (not a primary key: that is a bug)?"""

    def describe(self, exc: BaseException) -> str: ...


async def first(db: Reader, sql: str, args: Args = NO_ARGS) -> Row | None:
    rows = await db.fetch(sql, args)
    return rows[0] if rows else None


def chunks(items: Sequence[Any], size: int = 500) -> Iterator[Sequence[Any]]:
    """``items`` a slice at a time (SQLite's bound-parameter limit)."""
    for start in range(0, len(items), size):
        yield items[start : start + size]
