"""The store a test runs on, SQLite or PostgreSQL, and what tests do to it from outside.

A test asks for the ``store`` fixture (tests/server/conftest.py), parametrized
over both engines, and gets a :class:`StoreUnderTest`: the ``--store`` to give
the server (``target``), and, as another program would, reading its tables,
making one write refuse (a trigger: a write that can never commit) and holding
a lock the writer must wait for (a write that cannot commit for now). The SQL
given here has the storage's named parameters (``{name}``), marked as each
engine's driver binds them, as the backends do.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from server.storage import postgres, sqlite


@dataclass
class StoreUnderTest:
    dialect: str  # "sqlite" or "postgresql"
    target: str  # a SQLite file, or a postgresql:// URL

    @property
    def locked_text(self) -> str:
        """What the writer's failure says while another program holds the lock."""
        return (
            "database is locked"
            if self.dialect == "sqlite"
            else "canceling statement due to lock timeout"
        )

    @contextlib.contextmanager
    def _connect(self) -> Iterator[Any]:
        if self.dialect == "sqlite":
            conn = sqlite3.connect(self.target, timeout=10, isolation_level=None)
        else:
            import psycopg

            conn = psycopg.connect(self.target, autocommit=True)
        try:
            yield conn
        finally:
            conn.close()

    def _sql(self, sql: str) -> str:
        return sqlite.marked(sql) if self.dialect == "sqlite" else postgres.marked(sql)

    def rows(self, sql: str, args: Mapping[str, Any] | None = None) -> list[tuple[Any, ...]]:
        with self._connect() as conn:
            return [tuple(r) for r in conn.execute(self._sql(sql), args or {}).fetchall()]

    def execute(self, sql: str, args: Mapping[str, Any] | None = None) -> None:
        with self._connect() as conn:
            conn.execute(self._sql(sql), args or {})

    def refuse(self, name: str, table: str, when: str, message: str) -> None:
        """Make every insert into ``table`` whose NEW row meets ``when`` fail with
        ``message``: a write the database itself refuses, for good."""
        if self.dialect == "sqlite":
            self.execute(
                f"CREATE TRIGGER {name} BEFORE INSERT ON {table} WHEN {when}"
                f" BEGIN SELECT RAISE(ABORT, '{message}'); END"
            )
            return
        with self._connect() as conn:
            conn.execute(
                f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                f" IF {when} THEN RAISE EXCEPTION '{message}'; END IF; RETURN NEW; END $$"
            )
            conn.execute(
                f"CREATE TRIGGER {name} BEFORE INSERT ON {table}"
                f" FOR EACH ROW EXECUTE FUNCTION {name}()"
            )

    def allow(self, name: str, table: str) -> None:
        """Take :meth:`refuse`'s trigger away."""
        if self.dialect == "sqlite":
            self.execute(f"DROP TRIGGER {name}")
            return
        with self._connect() as conn:
            conn.execute(f"DROP TRIGGER {name} ON {table}")
            conn.execute(f"DROP FUNCTION {name}()")

    @contextlib.contextmanager
    def write_lock(self) -> Iterator[None]:
        """Another program holds what the writer needs (as a backup tool, a shell or a
        migration may): SQLite's write lock, or PostgreSQL's lock on the placements."""
        with self._connect() as conn:
            if self.dialect == "sqlite":
                conn.execute("BEGIN IMMEDIATE")
            else:
                conn.execute("BEGIN")
                # SHARE: no row written to the placements, every read goes on.
                conn.execute("LOCK TABLE placements IN SHARE MODE")
            try:
                yield
            finally:
                conn.rollback() if self.dialect == "postgresql" else conn.execute("ROLLBACK")
