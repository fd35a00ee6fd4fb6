BEGIN TRANSACTION;
CREATE TABLE abandonments (
    player_id  TEXT NOT NULL REFERENCES players (id),
    room_id    TEXT NOT NULL,
    series_id  TEXT NOT NULL,
    match_id   TEXT NOT NULL,
    kind       TEXT NOT NULL,  -- left (a forfeit), timeout (away beyond the grace period),
                               -- idle (never placed a card of an aborted rated series)
    at_ms      INTEGER NOT NULL
);
CREATE TABLE embargoes (
    id         TEXT PRIMARY KEY,  -- a group of deals played at several tables (server.visibility)
    lifted_ms  INTEGER            -- NULL: its deals are shown to nobody but their players
);
CREATE TABLE match_players (
    match_id      TEXT NOT NULL REFERENCES matches (id),
    seat          INTEGER NOT NULL,
    player_id     TEXT NOT NULL REFERENCES players (id),
    contribution  TEXT NOT NULL,
    PRIMARY KEY (match_id, seat)
);
INSERT INTO "match_players" VALUES('match1',0,'id-alice','alice''s share');
INSERT INTO "match_players" VALUES('match1',1,'bot-fallback-1','bot-fallback-1');
CREATE TABLE matches (
    id                 TEXT PRIMARY KEY,
    room_id            TEXT NOT NULL REFERENCES rooms (id),
    pace               TEXT NOT NULL,
    status             TEXT NOT NULL,  -- playing, finished, abandoned
    seed_commitment    TEXT NOT NULL,
    server_commitment  TEXT NOT NULL,
    card_clock_ms      INTEGER NOT NULL,
    deal_clock_ms      INTEGER NOT NULL,
    starter            TEXT,
    started_ms         INTEGER NOT NULL,
    finished_ms        INTEGER
, series_id TEXT, deal INTEGER NOT NULL DEFAULT 1, embargo TEXT);
INSERT INTO "matches" VALUES('match1','room1','lockstep','playing','ae71aafa6db83a1690e1ca922298890b983c99a442630ea3bfec51568b735d12','9791065143e72360c9cff795b7d2a8086e8f34715478dd5f5b7791370b6e1e80',10000,60000,NULL,0,NULL,'match1',1,NULL);
CREATE TABLE placements (
    match_id    TEXT NOT NULL REFERENCES matches (id),
    player_id   TEXT NOT NULL REFERENCES players (id),
    turn        INTEGER NOT NULL,
    cell        TEXT NOT NULL,
    card        TEXT NOT NULL,
    elapsed_ms  INTEGER NOT NULL,
    auto        INTEGER NOT NULL,
    placed_ms   INTEGER NOT NULL,
    PRIMARY KEY (match_id, player_id, turn)
);
INSERT INTO "placements" VALUES('match1','bot-fallback-1',1,'a1','KC',0,0,0);
INSERT INTO "placements" VALUES('match1','id-alice',1,'a1','KC',100,0,100);
INSERT INTO "placements" VALUES('match1','bot-fallback-1',2,'b1','QH',0,0,100);
INSERT INTO "placements" VALUES('match1','id-alice',2,'b1','QH',100,0,200);
INSERT INTO "placements" VALUES('match1','bot-fallback-1',3,'c1','2C',0,0,200);
INSERT INTO "placements" VALUES('match1','id-alice',3,'c1','2C',100,0,300);
INSERT INTO "placements" VALUES('match1','bot-fallback-1',4,'d1','4C',0,0,300);
CREATE TABLE players (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    guest       INTEGER NOT NULL DEFAULT 0,
    bot         INTEGER NOT NULL DEFAULT 0,
    token_hash  TEXT UNIQUE,
    created_ms  INTEGER NOT NULL
, name_key TEXT, name_clash INTEGER NOT NULL DEFAULT 0);
INSERT INTO "players" VALUES('id-alice','alice',0,0,'h1',1796132747708,'allce',0);
INSERT INTO "players" VALUES('p-bob','Bob',0,0,'h2',1796132747722,'bob',0);
INSERT INTO "players" VALUES('bot-fallback-1','fallback bot 1',0,1,NULL,1796132747726,NULL,0);
CREATE TABLE rating_history (
    player_id         TEXT NOT NULL REFERENCES players (id),
    pace              TEXT NOT NULL,
    series_id         TEXT NOT NULL,
    room_id           TEXT NOT NULL,
    opponent_id       TEXT NOT NULL,
    score             REAL NOT NULL,
    rating_before     REAL NOT NULL,
    deviation_before  REAL NOT NULL,
    rating_after      REAL NOT NULL,
    deviation_after   REAL NOT NULL,
    volatility_after  REAL NOT NULL,
    at_ms             INTEGER NOT NULL
);
CREATE TABLE ratings (
    player_id   TEXT NOT NULL REFERENCES players (id),
    pace        TEXT NOT NULL,
    rating      REAL NOT NULL,
    deviation   REAL NOT NULL,
    volatility  REAL NOT NULL,
    games       INTEGER NOT NULL,
    updated_ms  INTEGER NOT NULL,
    PRIMARY KEY (player_id, pace)
);
CREATE TABLE results (
    match_id      TEXT NOT NULL REFERENCES matches (id),
    player_id     TEXT NOT NULL REFERENCES players (id),
    seat          INTEGER NOT NULL,
    rank          INTEGER NOT NULL,
    score         INTEGER NOT NULL,
    time_used_ms  INTEGER NOT NULL,
    cells         TEXT NOT NULL,  -- JSON: 16 cards row by row
    detail        TEXT NOT NULL,  -- JSON: the itemized board score
    PRIMARY KEY (match_id, player_id)
);
CREATE TABLE rooms (
    id                 TEXT PRIMARY KEY,
    name               TEXT NOT NULL,
    visibility         TEXT NOT NULL,
    pace               TEXT NOT NULL,
    seats              INTEGER NOT NULL,
    card_clock_ms      INTEGER NOT NULL,
    deal_clock_ms      INTEGER NOT NULL,
    creator_id         TEXT NOT NULL REFERENCES players (id),
    server_commitment  TEXT NOT NULL,
    created_ms         INTEGER NOT NULL
, invite_code TEXT, deals INTEGER NOT NULL DEFAULT 1, rated INTEGER NOT NULL DEFAULT 0, origin TEXT NOT NULL DEFAULT 'room');
INSERT INTO "rooms" VALUES('room1','test room','public','lockstep',2,10000,60000,'id-alice','9791065143e72360c9cff795b7d2a8086e8f34715478dd5f5b7791370b6e1e80',0,NULL,1,0,'room');
CREATE TABLE seeds (
    match_id       TEXT PRIMARY KEY REFERENCES matches (id),
    seed           TEXT NOT NULL,
    server_secret  TEXT NOT NULL,
    contributions  TEXT NOT NULL  -- JSON list, seat order
);
INSERT INTO "seeds" VALUES('match1','ce73e4da66c464662fc4e55e36cc84d86451bcee56ec3645a4f13c9a876569f7','ssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssss','["alice''s share", "bot-fallback-1"]');
CREATE TABLE series (
    id           TEXT PRIMARY KEY,  -- the id of its first deal's match
    room_id      TEXT NOT NULL REFERENCES rooms (id),
    best_of      INTEGER NOT NULL,
    rated        INTEGER NOT NULL,
    pace         TEXT NOT NULL,
    origin       TEXT NOT NULL,  -- room, quickplay, challenge
    status       TEXT NOT NULL,  -- playing, finished, aborted (rated for nobody), abandoned
    winner_id    TEXT,  -- NULL: a draw, aborted, or not finished
    deals        INTEGER NOT NULL DEFAULT 0,
    standings    TEXT,  -- JSON: [{player_id, deals_won, points, time_used_ms, forfeited}]
    started_ms   INTEGER NOT NULL,
    finished_ms  INTEGER,
    root_secret  TEXT NOT NULL DEFAULT ''  -- the hash chain's last secret (fairness.md)
, secret_scheme TEXT NOT NULL DEFAULT 'chain');
INSERT INTO "series" VALUES('match1','room1',1,0,'lockstep','room','playing',NULL,0,NULL,0,NULL,'ssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssss','chain');
CREATE TABLE series_players (
    series_id  TEXT NOT NULL REFERENCES series (id),
    seat       INTEGER NOT NULL,
    player_id  TEXT NOT NULL REFERENCES players (id), strategy TEXT NOT NULL DEFAULT '', bot_seed TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (series_id, seat)
);
INSERT INTO "series_players" VALUES('match1',0,'id-alice','','');
INSERT INTO "series_players" VALUES('match1',1,'bot-fallback-1','fallback','room1/bot-fallback-1');
CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO "settings" VALUES('name_key','1; unicode 14.0.0; precis-i18n 1.1.2; confusable-homoglyphs 3.3.1');
CREATE TABLE tournament_entries (
    tournament_id  TEXT NOT NULL,
    player_id      TEXT NOT NULL,
    number         INTEGER NOT NULL,  -- registration order
    contribution   TEXT NOT NULL,
    joined_round   INTEGER NOT NULL,
    status         TEXT NOT NULL,  -- active, withdrawn, removed, eliminated
    seed           INTEGER,
    PRIMARY KEY (tournament_id, player_id)
);
CREATE TABLE tournament_rounds (
    tournament_id      TEXT NOT NULL,
    round              INTEGER NOT NULL,
    contribution       TEXT NOT NULL,
    contributors       TEXT NOT NULL,  -- JSON: [[player id, contribution], ...]
    server_commitment  TEXT NOT NULL,
    server_secret      TEXT,  -- once the round is over
    started_ms         INTEGER NOT NULL,
    finished_ms        INTEGER,
    PRIMARY KEY (tournament_id, round)
);
CREATE TABLE tournament_snapshots (
    tournament_id  TEXT PRIMARY KEY,
    state          TEXT NOT NULL,  -- JSON: the director's state (Director.snapshot)
    saved_ms       INTEGER NOT NULL
);
CREATE TABLE tournament_tables (
    tournament_id  TEXT NOT NULL,
    round          INTEGER NOT NULL,
    table_no       INTEGER NOT NULL,
    room_id        TEXT,
    series_id      TEXT,
    players        TEXT NOT NULL,  -- JSON list of player ids, seat order
    status         TEXT NOT NULL,  -- playing, bye, finished
    winner_id      TEXT,
    points         TEXT NOT NULL,  -- JSON: {player id: card points}
    PRIMARY KEY (tournament_id, round, table_no)
);
CREATE TABLE tournaments (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    format       TEXT NOT NULL,  -- duplicate, swiss, knockout
    visibility   TEXT NOT NULL,
    host_id      TEXT NOT NULL,
    settings     TEXT NOT NULL,  -- JSON
    commitment   TEXT NOT NULL,  -- SHA-256 of the first round's secret
    status       TEXT NOT NULL,  -- registering, playing, paused, finished, cancelled, abandoned
    standings    TEXT,           -- JSON: the final standings
    created_ms   INTEGER NOT NULL,
    started_ms   INTEGER,
    finished_ms  INTEGER
);
CREATE INDEX match_players_player ON match_players (player_id);
CREATE INDEX series_players_player ON series_players (player_id);
CREATE INDEX rating_history_player ON rating_history (player_id, at_ms);
CREATE INDEX abandonments_player ON abandonments (player_id);
CREATE INDEX tournaments_listed
    ON tournaments (created_ms, id) WHERE visibility = 'public';
CREATE INDEX tournament_tables_series ON tournament_tables (series_id);
CREATE INDEX matches_room ON matches (room_id);
CREATE INDEX series_room ON series (room_id);
CREATE INDEX rooms_created ON rooms (created_ms);
CREATE INDEX players_name_key ON players (name_key);
CREATE UNIQUE INDEX players_name_key_unique ON players (name_key) WHERE guest = 0 AND token_hash IS NOT NULL AND name_clash = 0;
COMMIT;
