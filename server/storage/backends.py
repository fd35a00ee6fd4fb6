"""Which backend a store is: a SQLite file, or a PostgreSQL database by URL.

``--store`` (and ``store`` in the config file) takes ``postgresql://`` (or
``postgres://``) URLs, ``sqlite:///PATH`` URLs (``sqlite:////abs/path``) and
plain paths; anything else
with a scheme is refused here, with a reason, before the server starts.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from server.storage.sql import Backend, Reader
from server.storage.sqlite import SqliteBackend, SqliteReader

POSTGRES_SCHEMES = ("postgresql", "postgres")


class BadStore(ValueError):
    """Not a store this server can open."""


def is_postgres(store: str) -> bool:
    return urlsplit(store).scheme in POSTGRES_SCHEMES


def sqlite_path(store: str) -> str | None:
    """The file of a SQLite store (a path, or ``sqlite:///PATH``); None if not SQLite."""
    if is_postgres(store):
        return None
    if store.startswith("sqlite:"):
        # As SQLAlchemy writes them: sqlite:///relative/path, sqlite:////absolute/path.
        path = store.removeprefix("sqlite:///")
        if path == store or not path:
            raise BadStore(f"{store!r}: a SQLite URL is sqlite:///PATH (a file)")
        return path
    scheme = urlsplit(store).scheme
    if len(scheme) > 1:  # "C:" is a drive, not a scheme
        raise BadStore(f"{store!r}: a path, sqlite:///PATH or postgresql://USER@HOST:PORT/DB")
    if not store:
        raise BadStore("an empty store: a path, sqlite:///PATH or postgresql://…")
    return store


def check(store: str) -> None:
    """BadStore if ``store`` cannot be a store (nothing is opened)."""
    if is_postgres(store):
        parts = urlsplit(store)
        if not parts.path.strip("/") and "dbname=" not in (parts.query or ""):
            raise BadStore(f"{_safe(store)}: name the database (postgresql://USER@HOST:PORT/DB)")
        return
    sqlite_path(store)


def _safe(store: str) -> str:
    """``store`` without its password, for a message."""
    parts = urlsplit(store)
    if parts.password is None:
        return store
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return parts._replace(netloc=netloc).geturl()


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
                f"{_safe(store)}: PostgreSQL needs psycopg: pip install 'cribsquares[postgresql]'"
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
