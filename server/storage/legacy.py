"""SQLite databases from before versioned migrations, brought to version 1.

Before ``schema_migrations`` a database was brought up to date at every start by
adding the columns it lacked; the data of a few of them was filled in once,
when they were added. Only SQLite databases can be that old (PostgreSQL came
with versions), so this runs in migration 1 on SQLite only, between the tables
(``CREATE TABLE IF NOT EXISTS``: a table that did not exist yet is made whole)
and the indexes (which may name the columns added here).
"""

from __future__ import annotations

from server.storage.sql import Tx

# Columns added after the first release, in the order they were: (table, column, declaration).
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("matches", "series_id", "TEXT"),
    ("matches", "deal", "INTEGER NOT NULL DEFAULT 1"),
    ("rooms", "invite_code", "TEXT"),
    ("rooms", "deals", "INTEGER NOT NULL DEFAULT 1"),
    ("rooms", "rated", "INTEGER NOT NULL DEFAULT 0"),
    ("rooms", "origin", "TEXT NOT NULL DEFAULT 'room'"),
    ("matches", "embargo", "TEXT"),
    ("series", "secret_scheme", "TEXT NOT NULL DEFAULT 'chain'"),
    ("series_players", "strategy", "TEXT NOT NULL DEFAULT ''"),
    ("series_players", "bot_seed", "TEXT NOT NULL DEFAULT ''"),
    ("players", "name_key", "TEXT"),
    ("players", "name_clash", "INTEGER NOT NULL DEFAULT 0"),
)

# Bot seats stored before their level was: a server bot's id was "bot-STRATEGY-N" (one
# word: random, greedy, expert or fallback, each still a level's name or alias) and its
# seed "ROOM/ID"; both are written down once, as every later series has them.
_BOT_SEATS = (
    "UPDATE series_players SET"
    " strategy = substr(player_id, 5, instr(substr(player_id, 5), '-') - 1),"
    " bot_seed = (SELECT room_id FROM series WHERE series.id = series_players.series_id)"
    " || '/' || player_id"
    " WHERE player_id LIKE 'bot-%-%'"
    " AND player_id IN (SELECT id FROM players WHERE bot = 1)",
)

# Tournament tables stored before matches had an embargo: each gets its round's,
# lifted if the round (or the tournament) is over.
_EMBARGOES = (
    "UPDATE matches SET embargo = (SELECT tt.tournament_id || '/' || tt.round"
    " FROM tournament_tables tt WHERE tt.series_id = matches.series_id)"
    " WHERE series_id IN (SELECT series_id FROM tournament_tables WHERE series_id IS NOT NULL)",
    "INSERT OR IGNORE INTO embargoes (id, lifted_ms)"
    " SELECT r.tournament_id || '/' || r.round, COALESCE(r.finished_ms, CASE WHEN t.status IN"
    " ('finished', 'cancelled', 'abandoned') THEN COALESCE(t.finished_ms, 0) END)"
    " FROM tournament_rounds r JOIN tournaments t ON t.id = r.tournament_id",
)

# Filled in when the column arrives.
_FILL = {("matches", "embargo"): _EMBARGOES, ("series_players", "bot_seed"): _BOT_SEATS}


def upgrade(tx: Tx) -> None:
    """Add the columns an older SQLite database lacks, filling in their data once."""
    for table, column, declaration in COLUMNS:
        have = {row["name"] for row in tx.fetchall(f"PRAGMA table_info({table})")}
        if column in have:
            continue
        tx.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
        for sql in _FILL.get((table, column), ()):
            tx.execute(sql)
    # SQLite's NOCASE folds ASCII only: it was the comparison of names before keys.
    tx.execute("DROP INDEX IF EXISTS players_registered_name")
