"""Which backend a store is: a SQLite file, or a PostgreSQL database by URL.

``--store`` (and ``store`` in the config file) takes ``postgresql://`` (or
``postgres://``) URLs, ``sqlite:///PATH`` URLs (``sqlite:////abs/path``) and
plain paths; anything else
with a scheme is refused here, with a reason, before the server starts.
"""

from __future__ import annotations

from server.storage.sql import Backend, Reader
from server.storage.sqlite import SqliteBackend, SqliteReader
from server.store_url import BadStore, is_postgres, safe, sqlite_path


def where(store: str) -> str:
    """What to call ``store`` in the server's first line and logs: the file, or the
    PostgreSQL database and its host (never a password)."""
    if is_postgres(store):
        return backend_for(store).where
    return sqlite_path(store) or store


def backend_for(store: str) -> Backend:
    if is_postgres(store):
        try:
            from server.storage.postgres import PostgresBackend
        except ImportError as exc:
            raise BadStore(
                f"{safe(store)}: PostgreSQL needs psycopg: pip install 'cribsquares[postgresql]'"
                f" ({exc})"
            ) from None
        return PostgresBackend(store)
    path = sqlite_path(store)
    assert path is not None
    return SqliteBackend(path)


async def open_reader(store: str) -> Reader:
    """A reader of ``store`` for a command that only reads (``cribsquares history``):
    a SQLite file is opened read-only, never created."""
    if is_postgres(store):
        return await backend_for(store).open_reader()
    path = sqlite_path(store)
    assert path is not None
    return await SqliteReader.open(path, read_only=True)
