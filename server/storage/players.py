"""Players in the database: registering one, its name's key, finding one.

The rules are :mod:`server.identity`'s: identity is a player id; a name's key
(:func:`protocol.names.name_key`) is unique among the players who hold a name
of their own, registered people and bot programs, and the database enforces it
with a unique index, rebuilt at every start (:func:`index_names`) because the
key of a name may change with a new version of the key.
"""

from __future__ import annotations

from typing import Any

from protocol.names import KEY_VERSION, name_key
from server.identity import HOLDS_NAME, Clash
from server.storage.sql import Reader, Row, Tx, first


class NameTaken(Exception):
    """A registered player, or a bot program, holds the key of that name."""


def index_names(tx: Tx) -> list[Clash]:
    """Key every player's name, rebuild the unique index, and return the clashes.

    Runs in the transaction that opens the store.
    """
    tx.execute("DROP INDEX IF EXISTS players_name_key_unique")
    stored = tx.fetchall("SELECT value FROM settings WHERE name = 'name_key'")
    where = "" if not stored or stored[0]["value"] != KEY_VERSION else " WHERE name_key IS NULL"
    rows = tx.fetchall(f"SELECT id, name FROM players{where}")
    if rows:
        tx.executemany("UPDATE players SET name_key = {key} WHERE id = {id}",
                       [{"key": name_key(r["name"]), "id": r["id"]} for r in rows])  # fmt: skip
    tx.execute(
        "INSERT INTO settings (name, value) VALUES ('name_key', {version})"
        " ON CONFLICT (name) DO UPDATE SET value = excluded.value",
        {"version": KEY_VERSION},
    )
    tx.execute(
        f"UPDATE players SET name_clash = CASE WHEN {HOLDS_NAME} AND EXISTS ("
        " SELECT 1 FROM players q WHERE q.name_key = players.name_key"
        " AND q.guest = 0 AND q.token_hash IS NOT NULL"
        " AND (q.created_ms, q.seq) < (players.created_ms, players.seq)) THEN 1 ELSE 0 END"
    )
    tx.execute(
        "CREATE UNIQUE INDEX players_name_key_unique ON players (name_key)"
        f" WHERE {HOLDS_NAME} AND name_clash = 0"
    )
    found: dict[str, list[tuple[str, str]]] = {}
    for r in tx.fetchall(
        f"SELECT name_key, id, name FROM players WHERE {HOLDS_NAME} AND name_key IN"
        f" (SELECT name_key FROM players WHERE {HOLDS_NAME} AND name_clash = 1)"
        " ORDER BY name_key, created_ms, seq"
    ):
        found.setdefault(r["name_key"], []).append((r["id"], r["name"]))
    return [Clash(key, tuple(players)) for key, players in found.items()]


def new_player(
    tx: Tx, pid: str, name: str, guest: bool, bot: bool, token_hash: str, now_ms: int
) -> None:
    """Insert a new player; NameTaken if a guest's name has a key someone holds (a
    registered name's key taken violates the unique index: the backend says so).

    A guest holds no key but may not take one that someone holds either.
    """
    key = name_key(name)
    if guest and tx.fetchall(
        f"SELECT 1 AS taken FROM players WHERE name_key = {{key}} AND {HOLDS_NAME} LIMIT 1",
        {"key": key},
    ):
        raise NameTaken(f"a registered player holds the key of {name!r}")
    tx.write(
        "INSERT INTO players (id, name, guest, bot, token_hash, created_ms, name_key)"
        " VALUES ({id}, {name}, {guest}, {bot}, {token_hash}, {at}, {key})",
        {"id": pid, "name": name, "guest": int(guest), "bot": int(bot),
         "token_hash": token_hash, "at": now_ms, "key": key},
    )  # fmt: skip


def seat_players(tx: Tx, players: list[tuple[str, str, bool, bool]], now_ms: int) -> None:
    """Players seen for the first time in a room or a tournament (bots are created
    on first use; people were stored when they said hello)."""
    tx.insert(
        "players", ("id", "name", "guest", "bot", "created_ms"),
        [(pid, name, int(guest), int(bot), now_ms) for pid, name, guest, bot in players],
        skip_existing=True,
    )  # fmt: skip


# ----------------------------------------------------------------------
# Reading

COLUMNS = "id, name, guest, bot"


def player_json(p: Row) -> dict[str, Any]:
    return {"id": p["id"], "name": p["name"], "guest": bool(p["guest"]), "bot": bool(p["bot"])}


async def by_token_hash(db: Reader, token_hash: str) -> Row | None:
    return await first(
        db, f"SELECT {COLUMNS} FROM players WHERE token_hash = {{hash}}", {"hash": token_hash}
    )


async def find_player(db: Reader, who: str) -> dict[str, Any] | None:
    """The player whose id is ``who``, else the one holding the key of the name ``who``."""
    row = await first(db, f"SELECT {COLUMNS} FROM players WHERE id = {{id}}", {"id": who})
    if row is not None:
        return dict(row)
    key = name_key(who)
    if not key:
        return None
    try:
        row = await first(
            db,
            f"SELECT {COLUMNS} FROM players WHERE name_key = {{key}} AND {HOLDS_NAME}"
            " AND name_clash = 0",
            {"key": key},
        )
    except db.schema_errors:  # a database no server of this version has opened yet
        # (nor its order column: of two players registered in the same millisecond,
        # the one whose id sorts first)
        rows = await db.fetch(
            f"SELECT {COLUMNS} FROM players WHERE {HOLDS_NAME} ORDER BY created_ms, id"
        )
        row = next((r for r in rows if name_key(r["name"]) == key), None)
    return dict(row) if row is not None else None


async def shadowed(db: Reader) -> set[str]:
    """The ids of the players whose name's key an earlier player holds (clashes)."""
    rows = await db.fetch(f"SELECT id FROM players WHERE {HOLDS_NAME} AND name_clash = 1")
    return {r["id"] for r in rows}
