"""What a ``--store`` names, read without opening anything: which engine, which file.

``--store`` (and ``store`` in the config file) takes ``postgresql://`` (or
``postgres://``) URLs, ``sqlite:///PATH`` URLs (``sqlite:////abs/path``) and
plain paths; anything else with a scheme is refused, with a reason, before
the server starts (server.config checks it). Pure: no database module is
imported here, so the settings' check brings none into the state machines.
"""

from __future__ import annotations

from urllib.parse import urlsplit

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
    if "://" in store:  # a URL of another kind ("a:b.db" is a file)
        raise BadStore(f"{store!r}: a path, sqlite:///PATH or postgresql://USER@HOST:PORT/DB")
    if not store:
        raise BadStore("an empty store: a path, sqlite:///PATH or postgresql://…")
    return store


def check(store: str) -> None:
    """BadStore if ``store`` cannot be a store (nothing is opened)."""
    if is_postgres(store):
        parts = urlsplit(store)
        if not parts.path.strip("/") and "dbname=" not in (parts.query or ""):
            raise BadStore(f"{safe(store)}: name the database (postgresql://USER@HOST:PORT/DB)")
        return
    sqlite_path(store)


def safe(store: str) -> str:
    """``store`` without its password, for a message."""
    parts = urlsplit(store)
    if parts.password is None:
        return store
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return parts._replace(netloc=netloc).geturl()
