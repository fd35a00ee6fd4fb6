"""Who a name stands for: player names' keys in the database, and the server's admins.

Identity is a player id. A name only finds one: the name's key
(:func:`protocol.names.name_key`) is unique among the players who hold a name
of their own, registered people and bot programs (``hello`` without ``guest``);
the database enforces it with a unique index. Guests (whose names need not be
unique, and may not take a key someone holds) and the server's own bots are
found by id only.

At every start (:func:`index_names`, on the writer's connection) each player
row gets the key of its name, and the unique index is rebuilt. A database
from before keys may hold names that now share a key (``Ada`` and ``ada``, or
``ada`` and ``ada `` with a trailing space): every such player is kept, with
its id, name, history and rating, and reported (:class:`Clash`); the first to
have registered holds the key, so the name finds that one, and the others
are found by id. Nothing is merged. docs/operations.md, *Names*, says what
an operator may do about them.

The admins (``cribsquares serve --admin``) are registered people, resolved
once at start to their ids (:func:`resolve_admins`).
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

import aiosqlite

from protocol.names import KEY_VERSION, name_key

log = logging.getLogger(__name__)

# The players who hold their name's key: not guests, not the server's bots (no token).
HOLDS_NAME = "guest = 0 AND token_hash IS NOT NULL"

# Columns added to ``players`` for the keys: (column, declaration).
COLUMNS = (("name_key", "TEXT"), ("name_clash", "INTEGER NOT NULL DEFAULT 0"))


@dataclass(frozen=True, slots=True)
class Clash:
    """Registered players whose names share a key; the first holds it."""

    key: str
    players: tuple[tuple[str, str], ...]  # (id, name), first registered first

    def describe(self) -> str:
        # ascii(): a stored name may hold anything, even escape sequences; logs show none.
        holder, *others = self.players
        return f"{holder[1]!a} ({holder[0]}, found by name) shadows " + ", ".join(
            f"{name!a} ({pid})" for pid, name in others
        )


def index_names(db: sqlite3.Connection) -> list[Clash]:
    """Key every player's name, rebuild the unique index, and return the clashes.

    Runs in the writer's transaction at start; the caller commits.
    """
    have = {row[1] for row in db.execute("PRAGMA table_info(players)")}
    for column, declaration in COLUMNS:
        if column not in have:
            db.execute(f"ALTER TABLE players ADD COLUMN {column} {declaration}")
    # SQLite's NOCASE folds ASCII only: it was the comparison before keys.
    db.execute("DROP INDEX IF EXISTS players_registered_name")
    db.execute("DROP INDEX IF EXISTS players_name_key_unique")
    db.execute("CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
    stored = db.execute("SELECT value FROM settings WHERE name = 'name_key'").fetchone()
    where = "" if stored is None or stored[0] != KEY_VERSION else " WHERE name_key IS NULL"
    rows = db.execute(f"SELECT id, name FROM players{where}").fetchall()
    db.executemany("UPDATE players SET name_key = ? WHERE id = ?",
                   [(name_key(name), pid) for pid, name in rows])  # fmt: skip
    db.execute(
        "INSERT INTO settings VALUES ('name_key', ?)"
        " ON CONFLICT (name) DO UPDATE SET value = excluded.value",
        (KEY_VERSION,),
    )
    db.execute("CREATE INDEX IF NOT EXISTS players_name_key ON players (name_key)")
    db.execute(
        "UPDATE players SET name_clash = CASE WHEN " + HOLDS_NAME + " THEN EXISTS ("
        " SELECT 1 FROM players q WHERE q.name_key = players.name_key"
        " AND q.guest = 0 AND q.token_hash IS NOT NULL"
        " AND (q.created_ms, q.rowid) < (players.created_ms, players.rowid)) ELSE 0 END"
    )
    db.execute(
        "CREATE UNIQUE INDEX players_name_key_unique ON players (name_key)"
        f" WHERE {HOLDS_NAME} AND name_clash = 0"
    )
    found: dict[str, list[tuple[str, str]]] = {}
    for key, pid, name in db.execute(
        f"SELECT name_key, id, name FROM players WHERE {HOLDS_NAME} AND name_key IN"
        f" (SELECT name_key FROM players WHERE {HOLDS_NAME} AND name_clash = 1)"
        " ORDER BY name_key, created_ms, rowid"
    ):
        found.setdefault(key, []).append((pid, name))
    return [Clash(key, tuple(players)) for key, players in found.items()]


def report(clashes: list[Clash]) -> None:
    if not clashes:
        return
    log.warning(
        "%d names are shared by players registered before names were compared on their"
        " keys; each player is kept, the first holds the name and the others are found"
        " by id (docs/operations.md, Names): %s",
        len(clashes),
        "; ".join(c.describe() for c in clashes),
    )


def new_player_row(
    db: sqlite3.Connection, pid: str, name: str, guest: bool, bot: bool, token_hash: str,
    now_ms: int,
) -> None:  # fmt: skip
    """Insert a new player; sqlite3.IntegrityError if its name's key is taken.

    A guest holds no key but may not take one that someone holds either.
    """
    key = name_key(name)
    if (
        guest
        and db.execute(
            f"SELECT 1 FROM players WHERE name_key = ? AND {HOLDS_NAME} LIMIT 1", (key,)
        ).fetchone()
    ):
        raise sqlite3.IntegrityError(f"a registered player holds the key of {name!r}")
    db.execute(
        "INSERT INTO players (id, name, guest, bot, token_hash, created_ms, name_key)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        (pid, name, int(guest), int(bot), token_hash, now_ms, key),
    )


# ----------------------------------------------------------------------
# Reading


async def find_player(db: aiosqlite.Connection, who: str) -> dict[str, Any] | None:
    """The player whose id is ``who``, else the one holding the key of the name ``who``."""
    db.row_factory = aiosqlite.Row
    columns = "id, name, guest, bot"
    async with db.execute(f"SELECT {columns} FROM players WHERE id = ?", (who,)) as cur:
        row = await cur.fetchone()
    if row is not None:
        return dict(row)
    key = name_key(who)
    if not key:
        return None
    try:
        async with db.execute(
            f"SELECT {columns} FROM players WHERE name_key = ? AND {HOLDS_NAME} AND name_clash = 0",
            (key,),
        ) as cur:
            row = await cur.fetchone()
    except sqlite3.OperationalError:  # a database no server of this version has opened yet
        async with db.execute(
            f"SELECT {columns} FROM players WHERE {HOLDS_NAME} ORDER BY created_ms, rowid"
        ) as cur:
            rows = await cur.fetchall()
        row = next((r for r in rows if name_key(r["name"]) == key), None)
    return dict(row) if row is not None else None


async def shadowed(db: aiosqlite.Connection) -> set[str]:
    """The ids of the players whose name's key an earlier player holds (clashes)."""
    async with db.execute(f"SELECT id FROM players WHERE {HOLDS_NAME} AND name_clash = 1") as cur:
        return {row[0] for row in await cur.fetchall()}


class AdminNotFound(ValueError):
    """``--admin`` names nobody who may be an admin."""


async def resolve_admins(
    find: Callable[[str], Awaitable[dict[str, Any] | None]], given: Iterable[str]
) -> frozenset[str]:
    """The player ids of the admins given by id or registered name (``find``: Storage's
    find_player); AdminNotFound if one is not a registered person (a guest, a bot, nobody)."""
    ids = set()
    for who in given:
        found = await find(who)
        if found is None:
            raise AdminNotFound(f"--admin {who}: no registered player has that id or name")
        if found["guest"] or found["bot"]:
            kind = "a guest" if found["guest"] else "a bot"
            raise AdminNotFound(f"--admin {who}: {found['id']} is {kind}, not a registered person")
        ids.add(found["id"])
        log.info("admin: %s (%s)", ascii(found["name"]), found["id"])
    return frozenset(ids)
