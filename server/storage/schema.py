"""The schema, once for both engines: the tables and indexes of version 1, and the
tables later versions add (each applied by its migration, server.storage.migrations).

Written in the SQL SQLite and PostgreSQL share: ``TEXT``, ``BIGINT`` (SQLite
gives it integer affinity; PostgreSQL needs 64 bits for times in ms) and
``DOUBLE PRECISION`` (SQLite: real affinity), 0/1 integers for truth values,
JSON as text. One difference is left to the backend: the tables read in the
order rows were inserted (``ORDER BY ..., seq``) have an explicit column ``seq``
on both engines: on PostgreSQL :data:`SEQ` makes it an identity column from
version 1; on SQLite version 7 adds it (:data:`SQLITE_SEQ`), numbered by a
trigger as each row is inserted. The queries name ``seq`` alike on both.

Columns keep the order in which earlier versions added them, so that a table a
migration from before versions grew (:mod:`server.storage.legacy`) and one
made here hold their columns in the same order. Later changes are numbered
migrations (:mod:`server.storage.migrations`), never edits of this text.
"""

from __future__ import annotations

import re

# Where a table read in insertion order has its ``{seq}``: nothing on SQLite.
SEQ = {"sqlite": "", "postgresql": ",\n    seq BIGINT GENERATED ALWAYS AS IDENTITY"}

TABLES = """
CREATE TABLE IF NOT EXISTS players (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    guest       BIGINT NOT NULL DEFAULT 0,
    bot         BIGINT NOT NULL DEFAULT 0,
    token_hash  TEXT UNIQUE,
    created_ms  BIGINT NOT NULL,
    name_key    TEXT,                          -- protocol.names.name_key (storage.players)
    name_clash  BIGINT NOT NULL DEFAULT 0{seq}
);
CREATE TABLE IF NOT EXISTS settings (
    name   TEXT PRIMARY KEY,
    value  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS rooms (
    id                 TEXT PRIMARY KEY,
    name               TEXT NOT NULL,
    visibility         TEXT NOT NULL,
    pace               TEXT NOT NULL,
    seats              BIGINT NOT NULL,
    card_clock_ms      BIGINT NOT NULL,
    deal_clock_ms      BIGINT NOT NULL,
    creator_id         TEXT NOT NULL REFERENCES players (id),
    server_commitment  TEXT NOT NULL,
    created_ms         BIGINT NOT NULL,
    invite_code        TEXT,
    deals              BIGINT NOT NULL DEFAULT 1,
    rated              BIGINT NOT NULL DEFAULT 0,
    origin             TEXT NOT NULL DEFAULT 'room'
);
CREATE TABLE IF NOT EXISTS matches (
    id                 TEXT PRIMARY KEY,
    room_id            TEXT NOT NULL REFERENCES rooms (id),
    pace               TEXT NOT NULL,
    status             TEXT NOT NULL,  -- playing, finished, abandoned
    seed_commitment    TEXT NOT NULL,
    server_commitment  TEXT NOT NULL,
    card_clock_ms      BIGINT NOT NULL,
    deal_clock_ms      BIGINT NOT NULL,
    starter            TEXT,
    started_ms         BIGINT NOT NULL,
    finished_ms        BIGINT,
    series_id          TEXT,
    deal               BIGINT NOT NULL DEFAULT 1,
    embargo            TEXT  -- a tournament round's group (server.visibility)
);
CREATE TABLE IF NOT EXISTS match_players (
    match_id      TEXT NOT NULL REFERENCES matches (id),
    seat          BIGINT NOT NULL,
    player_id     TEXT NOT NULL REFERENCES players (id),
    contribution  TEXT NOT NULL,
    PRIMARY KEY (match_id, seat)
);
CREATE TABLE IF NOT EXISTS placements (
    match_id    TEXT NOT NULL REFERENCES matches (id),
    player_id   TEXT NOT NULL REFERENCES players (id),
    turn        BIGINT NOT NULL,
    cell        TEXT NOT NULL,
    card        TEXT NOT NULL,
    elapsed_ms  BIGINT NOT NULL,
    auto        BIGINT NOT NULL,
    placed_ms   BIGINT NOT NULL,
    PRIMARY KEY (match_id, player_id, turn)
);
CREATE TABLE IF NOT EXISTS results (
    match_id      TEXT NOT NULL REFERENCES matches (id),
    player_id     TEXT NOT NULL REFERENCES players (id),
    seat          BIGINT NOT NULL,
    rank          BIGINT NOT NULL,
    score         BIGINT NOT NULL,
    time_used_ms  BIGINT NOT NULL,
    cells         TEXT NOT NULL,  -- JSON: 16 cards row by row
    detail        TEXT NOT NULL,  -- JSON: the itemized board score
    PRIMARY KEY (match_id, player_id)
);
CREATE TABLE IF NOT EXISTS seeds (
    match_id       TEXT PRIMARY KEY REFERENCES matches (id),
    seed           TEXT NOT NULL,
    server_secret  TEXT NOT NULL,
    contributions  TEXT NOT NULL  -- JSON list, seat order
);
CREATE TABLE IF NOT EXISTS series (
    id             TEXT PRIMARY KEY,  -- the id of its first deal's match
    room_id        TEXT NOT NULL REFERENCES rooms (id),
    best_of        BIGINT NOT NULL,
    rated          BIGINT NOT NULL,
    pace           TEXT NOT NULL,
    origin         TEXT NOT NULL,  -- room, quickplay, challenge, tournament
    status         TEXT NOT NULL,  -- playing, finished, aborted (rated for nobody), abandoned
    winner_id      TEXT,  -- NULL: a draw, aborted, or not finished
    deals          BIGINT NOT NULL DEFAULT 0,
    standings      TEXT,  -- JSON: [{player_id, deals_won, points, time_used_ms, forfeited}]
    started_ms     BIGINT NOT NULL,
    finished_ms    BIGINT,
    root_secret    TEXT NOT NULL DEFAULT '',  -- the hash chain's last secret (fairness.md)
    secret_scheme  TEXT NOT NULL DEFAULT 'chain'  -- server.series.SecretScheme
);
CREATE TABLE IF NOT EXISTS series_players (
    series_id  TEXT NOT NULL REFERENCES series (id),
    seat       BIGINT NOT NULL,
    player_id  TEXT NOT NULL REFERENCES players (id),
    strategy   TEXT NOT NULL DEFAULT '',  -- a server bot's seat: its level and seed
    bot_seed   TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (series_id, seat)
);
CREATE TABLE IF NOT EXISTS ratings (
    player_id   TEXT NOT NULL REFERENCES players (id),
    pace        TEXT NOT NULL,
    rating      DOUBLE PRECISION NOT NULL,
    deviation   DOUBLE PRECISION NOT NULL,
    volatility  DOUBLE PRECISION NOT NULL,
    games       BIGINT NOT NULL,
    updated_ms  BIGINT NOT NULL,
    PRIMARY KEY (player_id, pace)
);
CREATE TABLE IF NOT EXISTS rating_history (
    player_id         TEXT NOT NULL REFERENCES players (id),
    pace              TEXT NOT NULL,
    series_id         TEXT NOT NULL,
    room_id           TEXT NOT NULL,
    opponent_id       TEXT NOT NULL,
    score             DOUBLE PRECISION NOT NULL,
    rating_before     DOUBLE PRECISION NOT NULL,
    deviation_before  DOUBLE PRECISION NOT NULL,
    rating_after      DOUBLE PRECISION NOT NULL,
    deviation_after   DOUBLE PRECISION NOT NULL,
    volatility_after  DOUBLE PRECISION NOT NULL,
    at_ms             BIGINT NOT NULL{seq}
);
CREATE TABLE IF NOT EXISTS abandonments (
    player_id  TEXT NOT NULL REFERENCES players (id),
    room_id    TEXT NOT NULL,
    series_id  TEXT NOT NULL,
    match_id   TEXT NOT NULL,
    kind       TEXT NOT NULL,  -- left (a forfeit), timeout (away beyond the grace period),
                               -- idle (never placed a card of an aborted rated series)
    at_ms      BIGINT NOT NULL{seq}
);
CREATE TABLE IF NOT EXISTS embargoes (
    id         TEXT PRIMARY KEY,  -- a group of deals played at several tables (server.visibility)
    lifted_ms  BIGINT             -- NULL: its deals are shown to nobody but their players
);
CREATE TABLE IF NOT EXISTS tournaments (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    format       TEXT NOT NULL,  -- duplicate, swiss, knockout
    visibility   TEXT NOT NULL,
    host_id      TEXT NOT NULL,
    settings     TEXT NOT NULL,  -- JSON
    commitment   TEXT NOT NULL,  -- SHA-256 of the first round's secret
    status       TEXT NOT NULL,  -- registering, playing, paused, finished, cancelled, abandoned
    standings    TEXT,           -- JSON: the final standings
    created_ms   BIGINT NOT NULL,
    started_ms   BIGINT,
    finished_ms  BIGINT
);
CREATE TABLE IF NOT EXISTS tournament_entries (
    tournament_id  TEXT NOT NULL,
    player_id      TEXT NOT NULL,
    number         BIGINT NOT NULL,  -- registration order
    contribution   TEXT NOT NULL,
    joined_round   BIGINT NOT NULL,
    status         TEXT NOT NULL,  -- active, withdrawn, removed, eliminated
    seed           BIGINT,
    PRIMARY KEY (tournament_id, player_id)
);
CREATE TABLE IF NOT EXISTS tournament_rounds (
    tournament_id      TEXT NOT NULL,
    round              BIGINT NOT NULL,
    contribution       TEXT NOT NULL,
    contributors       TEXT NOT NULL,  -- JSON: [[player id, contribution], ...]
    server_commitment  TEXT NOT NULL,
    server_secret      TEXT,  -- once the round is over
    started_ms         BIGINT NOT NULL,
    finished_ms        BIGINT,
    PRIMARY KEY (tournament_id, round)
);
CREATE TABLE IF NOT EXISTS tournament_tables (
    tournament_id  TEXT NOT NULL,
    round          BIGINT NOT NULL,
    table_no       BIGINT NOT NULL,
    room_id        TEXT,
    series_id      TEXT,
    players        TEXT NOT NULL,  -- JSON list of player ids, seat order
    status         TEXT NOT NULL,  -- playing, bye, finished
    winner_id      TEXT,
    points         TEXT NOT NULL,  -- JSON: {player id: card points}
    PRIMARY KEY (tournament_id, round, table_no)
);
CREATE TABLE IF NOT EXISTS tournament_snapshots (
    tournament_id  TEXT PRIMARY KEY,
    state          TEXT NOT NULL,  -- JSON: the director's state (Director.snapshot)
    saved_ms       BIGINT NOT NULL
);
"""

INDEXES = """
CREATE INDEX IF NOT EXISTS players_name_key ON players (name_key);
CREATE INDEX IF NOT EXISTS match_players_player ON match_players (player_id);
CREATE INDEX IF NOT EXISTS series_players_player ON series_players (player_id);
CREATE INDEX IF NOT EXISTS rating_history_player ON rating_history (player_id, at_ms);
CREATE INDEX IF NOT EXISTS abandonments_player ON abandonments (player_id);
CREATE INDEX IF NOT EXISTS tournaments_listed
    ON tournaments (created_ms, id) WHERE visibility = 'public';
CREATE INDEX IF NOT EXISTS tournament_tables_series ON tournament_tables (series_id);
CREATE INDEX IF NOT EXISTS matches_room ON matches (room_id);
CREATE INDEX IF NOT EXISTS series_room ON series (room_id);
CREATE INDEX IF NOT EXISTS rooms_created ON rooms (created_ms);
"""

# Version 2: the daily deal (server.storage.daily).
DAILY = """
CREATE TABLE IF NOT EXISTS daily_secrets (
    day         TEXT PRIMARY KEY,  -- YYYY-MM-DD, UTC
    secret      TEXT NOT NULL,     -- fresh randomness; shown once the day's embargo is lifted
    commitment  TEXT NOT NULL,     -- its SHA-256, published from the moment it is stored
    drawn_ms    BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS daily_attempts (
    day         TEXT NOT NULL,
    player_id   TEXT NOT NULL,
    room_id     TEXT NOT NULL,
    match_id    TEXT NOT NULL,     -- the attempt's one deal (its series has the same id)
    pace        TEXT NOT NULL,
    clock_ms    BIGINT NOT NULL,
    started_ms  BIGINT NOT NULL,
    PRIMARY KEY (day, player_id)   -- one attempt per player and day
);
CREATE INDEX IF NOT EXISTS daily_attempts_player ON daily_attempts (player_id, day);
"""

# Version 3: the newest lease token of each key a cluster node writes under
# (server.storage.records.Fence, docs/scaling.md).
FENCES = """
CREATE TABLE IF NOT EXISTS fences (
    key   TEXT PRIMARY KEY,
    token BIGINT NOT NULL
);
"""

# Version 5: a finished deal's rank notes (match_result's ``ranking``: who resigned, a
# race's tie broken on time used), as JSON; NULL for a deal stored before they were kept.
RANKING = """
ALTER TABLE matches ADD COLUMN ranking TEXT;
"""

# Version 6: the games a restart set aside, untouched, as this release could not resume
# them (server.storage.quarantine, docs/operations.md); a later start that resumes one
# deletes its row.
QUARANTINE = """
CREATE TABLE IF NOT EXISTS quarantine (
    kind     TEXT NOT NULL,    -- tournament, series
    id       TEXT NOT NULL,    -- the tournament's or the series' id
    release  TEXT NOT NULL,    -- the version of cribsquares that set it aside
    reason   TEXT NOT NULL,    -- what its restore raised, one line
    at_ms    BIGINT NOT NULL,  -- the latest start that set it aside
    PRIMARY KEY (kind, id)
);
"""

# The tables read in insertion order (their ``{seq}`` above).
ORDERED = ("players", "rating_history", "abandonments")


def sqlite_seq(table: str) -> list[str]:
    """SQLite, version 7: ``table``'s explicit order column, numbered as its rows were
    inserted (their ``rowid``) and, by a trigger, as each new one is. A database of
    version 7 reads ``seq`` as PostgreSQL does; no query names ``rowid``."""
    return [
        f"ALTER TABLE {table} ADD COLUMN seq INTEGER",
        f"UPDATE {table} SET seq = rowid",
        f"CREATE INDEX IF NOT EXISTS {table}_seq ON {table} (seq)",
        f"CREATE TRIGGER IF NOT EXISTS {table}_seq AFTER INSERT ON {table}"
        f" FOR EACH ROW WHEN NEW.seq IS NULL"
        f" BEGIN UPDATE {table} SET seq = NEW.rowid WHERE rowid = NEW.rowid; END",
    ]


# PostgreSQL only: a write's count of rows changed, checked in the database (Tx.expect),
# so that a transaction's fences go to the server with its commit. It raises
# EXPECTATION, the expect()'s index as its detail. SQLite counts them in the writer.
EXPECT_FUNCTION = "cribsquares_expect"
EXPECTATION = "CS001"
EXPECT = f"""
CREATE OR REPLACE FUNCTION {EXPECT_FUNCTION}(changed BIGINT, expected BIGINT, failure INT)
RETURNS VOID LANGUAGE plpgsql AS $$
BEGIN
  IF changed <> expected THEN
    RAISE EXCEPTION 'expected % rows changed, % were', expected, changed
      USING ERRCODE = '{EXPECTATION}', DETAIL = failure::text;
  END IF;
END
$$"""


def statements(script: str, dialect: str) -> list[str]:
    """The statements of ``script`` for ``dialect``, one by one."""
    # Comments go first: they may hold a semicolon (the schema's strings hold no "--").
    text = re.sub(r"--[^\n]*", "", script.replace("{seq}", SEQ[dialect]))
    return [s.strip() for s in text.split(";") if s.strip()]
