"""Where ``history`` and ``analyze`` read a server's store: ``--db PATH`` or ``--store URL``.

Both commands only read, and the server may be running: a SQLite file is opened
read-only and never created; a PostgreSQL store is read through a connection of
its own. Every way this can fail is a :class:`UsageError` (one line on stderr).
"""

from __future__ import annotations

import argparse
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from client_cli.cli import UsageError

if TYPE_CHECKING:
    from server.storage.sql import Reader

DEFAULT_DB = "cribsquares.db"


def add_store_options(group: argparse._ActionsContainer) -> None:
    """``--db`` and ``--store`` (one or the other) on ``group``."""
    group.add_argument(
        "--db", metavar="PATH", help="read a server's SQLite file directly (an operator's)"
    )
    group.add_argument(
        "--store",
        metavar="URL",
        help="read a server's store directly, as `serve --store` takes it:"
        " postgresql://USER@HOST:PORT/DB, sqlite:///PATH or a path",
    )


def chosen(args: argparse.Namespace) -> str:
    """The store the options name (``--store``, else ``--db``, else the default file)."""
    store: str = args.store or args.db or DEFAULT_DB
    return store


def shown(store: str) -> str:
    """``store`` as a message names it: without a password."""
    from server.store_url import safe

    return safe(store)


@asynccontextmanager
async def reading(store: str) -> AsyncIterator[Reader]:
    """A read-only connection to ``store``, closed afterwards."""
    from server.storage.backends import open_reader
    from server.store_url import BadStore, sqlite_path

    try:
        path = sqlite_path(store)
    except BadStore as exc:
        raise UsageError(str(exc)) from None
    if path is not None and not Path(path).is_file():
        raise UsageError(f"no database at {path} (start the server with --db to create one)")
    try:
        reader = await open_reader(store)
    except Exception as exc:  # the driver's own errors: refused, no such database, no password
        raise UsageError(f"cannot read {shown(store)}: {_first_line(exc)}") from None
    try:
        yield reader
    except _driver_errors() as exc:
        # A database without the server's tables, or one that went away meanwhile.
        raise UsageError(
            f"{shown(store)} could not be read as a cribsquares store: {_first_line(exc)}"
        ) from None
    finally:
        await reader.close()


def _driver_errors() -> tuple[type[Exception], ...]:
    """What the database drivers raise (not a bug of the reading code)."""
    import sqlite3

    found: list[type[Exception]] = [sqlite3.Error]
    try:
        import psycopg
    except ImportError:  # not installed: no PostgreSQL store could be opened either
        pass
    else:
        found.append(psycopg.Error)
    return tuple(found)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
