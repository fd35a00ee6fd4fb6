"""Match history in SQLite: players, rooms, matches, every placement, results, seeds.

The storage layer only persists what rooms decided (server.events) and answers
read-only history queries; it never decides anything about a game.

One writer: a single task drains whatever has queued up and hands it, in one
call, to the thread that owns the write connection (plain ``sqlite3``), which
writes it in one transaction (placements with ``executemany``) and commits
once; then the task resolves the waiting futures in order. It gathers for
``batch_wait_s`` (2 ms) after the first submission of a batch: under load that
turns a trip to the thread per placement into one per several. The WebSocket
handler awaits that future before sending the messages a command produced,
so a placement is committed before it is acknowledged, yet a burst of
placements costs one commit and one trip to the thread. Reads use a second
connection (WAL mode lets it read while the writer writes).

A write that fails never resolves as success (docs/operations.md, *When the
database cannot be written*). A failure that can pass (the disk full, the file
read-only, locked by another program, an I/O error) is retried, with backoff,
until the write commits: it and everything submitted after it wait, in order,
and :attr:`Storage.failing` says why. Any other failure is the write's own:
it is tried alone (so the writes batched with it still commit) and is lost,
and so is every write already waiting behind it, because the rooms that made
them may have built on what was lost. Before anything else runs, the writer
tells its owner which writes are lost (``on_lost``), so that it can take the
rooms concerned out of play before they make more; their futures then fail
with :class:`WriteFailed`.

Series still being played when the server stopped (or died) are read back at
the next start (:meth:`Storage.unfinished`) so that their rooms resume; one
that cannot be resumed is marked ``abandoned`` (:meth:`Storage.abandon`).
Tournaments being run come back from their directors' latest snapshots
(:meth:`Storage.unfinished_tournaments`, :meth:`Storage.abandon_tournament`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sqlite3
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

import aiosqlite

from server import identity, pruning, visibility
from server.daily import store as daily_store
from server.daily.views import DayFacts
from server.events import (
    Abandoned,
    CardPlaced,
    EmbargoLifted,
    Event,
    MatchBegan,
    MatchEnded,
    PlayerRecord,
    RatingChanged,
    RoomOpened,
    SeriesBegan,
    SeriesEnded,
)
from server.ratings import PROVISIONAL_DEVIATION, Entry, Rating
from server.recovery import (
    Resumable,
    ResumableTournament,
    StoredDeal,
    StoredPlacement,
    StoredTable,
)
from server.sqlite_reads import fetch_rows
from server.tournaments import store as tournament_store

log = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    guest       INTEGER NOT NULL DEFAULT 0,
    bot         INTEGER NOT NULL DEFAULT 0,
    token_hash  TEXT UNIQUE,
    created_ms  INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS rooms (
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
);
CREATE TABLE IF NOT EXISTS matches (
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
);
CREATE TABLE IF NOT EXISTS match_players (
    match_id      TEXT NOT NULL REFERENCES matches (id),
    seat          INTEGER NOT NULL,
    player_id     TEXT NOT NULL REFERENCES players (id),
    contribution  TEXT NOT NULL,
    PRIMARY KEY (match_id, seat)
);
CREATE INDEX IF NOT EXISTS match_players_player ON match_players (player_id);
CREATE TABLE IF NOT EXISTS placements (
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
CREATE TABLE IF NOT EXISTS results (
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
CREATE TABLE IF NOT EXISTS seeds (
    match_id       TEXT PRIMARY KEY REFERENCES matches (id),
    seed           TEXT NOT NULL,
    server_secret  TEXT NOT NULL,
    contributions  TEXT NOT NULL  -- JSON list, seat order
);
CREATE TABLE IF NOT EXISTS series (
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
);
CREATE TABLE IF NOT EXISTS series_players (
    series_id  TEXT NOT NULL REFERENCES series (id),
    seat       INTEGER NOT NULL,
    player_id  TEXT NOT NULL REFERENCES players (id),
    PRIMARY KEY (series_id, seat)
);
CREATE INDEX IF NOT EXISTS series_players_player ON series_players (player_id);
CREATE TABLE IF NOT EXISTS ratings (
    player_id   TEXT NOT NULL REFERENCES players (id),
    pace        TEXT NOT NULL,
    rating      REAL NOT NULL,
    deviation   REAL NOT NULL,
    volatility  REAL NOT NULL,
    games       INTEGER NOT NULL,
    updated_ms  INTEGER NOT NULL,
    PRIMARY KEY (player_id, pace)
);
CREATE TABLE IF NOT EXISTS rating_history (
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
CREATE INDEX IF NOT EXISTS rating_history_player ON rating_history (player_id, at_ms);
CREATE TABLE IF NOT EXISTS abandonments (
    player_id  TEXT NOT NULL REFERENCES players (id),
    room_id    TEXT NOT NULL,
    series_id  TEXT NOT NULL,
    match_id   TEXT NOT NULL,
    kind       TEXT NOT NULL,  -- left (a forfeit), timeout (away beyond the grace period),
                               -- idle (never placed a card of an aborted rated series)
    at_ms      INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS abandonments_player ON abandonments (player_id);
CREATE TABLE IF NOT EXISTS embargoes (
    id         TEXT PRIMARY KEY,  -- a group of deals played at several tables (server.visibility)
    lifted_ms  INTEGER            -- NULL: its deals are shown to nobody but their players
);
"""

# Columns added after the first release: (table, column, declaration).
MIGRATIONS: tuple[tuple[str, str, str], ...] = (
    ("matches", "series_id", "TEXT"),
    ("matches", "deal", "INTEGER NOT NULL DEFAULT 1"),
    ("rooms", "invite_code", "TEXT"),
    ("rooms", "deals", "INTEGER NOT NULL DEFAULT 1"),
    ("rooms", "rated", "INTEGER NOT NULL DEFAULT 0"),
    ("rooms", "origin", "TEXT NOT NULL DEFAULT 'room'"),
    ("matches", "embargo", "TEXT"),  # a tournament round's group (server.visibility)
    ("series", "secret_scheme", "TEXT NOT NULL DEFAULT 'chain'"),  # server.series.SecretScheme
    # A server bot's seat: the level it plays and its seed ('' for everyone else), as
    # data (server.room.restore).
    ("series_players", "strategy", "TEXT NOT NULL DEFAULT ''"),
    ("series_players", "bot_seed", "TEXT NOT NULL DEFAULT ''"),
)

# Bot seats stored before their level was: a server bot's id was "bot-STRATEGY-N" (one
# word: random, greedy, expert or fallback, each still a level's name or alias) and its
# seed "ROOM/ID"; both are written down once, as every later series has them.
_BOT_SEATS_EXISTING = (
    "UPDATE series_players SET"
    " strategy = substr(player_id, 5, instr(substr(player_id, 5), '-') - 1),"
    " bot_seed = (SELECT room_id FROM series WHERE series.id = series_players.series_id)"
    " || '/' || player_id"
    " WHERE player_id LIKE 'bot-%-%'"
    " AND player_id IN (SELECT id FROM players WHERE bot = 1)",
)

# Tournament tables stored before matches had an embargo: each gets its round's,
# lifted if the round (or the tournament) is over.
_EMBARGO_EXISTING = (
    "UPDATE matches SET embargo = (SELECT tt.tournament_id || '/' || tt.round"
    " FROM tournament_tables tt WHERE tt.series_id = matches.series_id)"
    " WHERE series_id IN (SELECT series_id FROM tournament_tables WHERE series_id IS NOT NULL)",
    "INSERT OR IGNORE INTO embargoes (id, lifted_ms)"
    " SELECT r.tournament_id || '/' || r.round, COALESCE(r.finished_ms, CASE WHEN t.status IN"
    " ('finished', 'cancelled', 'abandoned') THEN COALESCE(t.finished_ms, 0) END)"
    " FROM tournament_rounds r JOIN tournaments t ON t.id = r.tournament_id",
)


@dataclass(frozen=True, slots=True)
class StoredPlayer:
    id: str
    name: str
    guest: bool
    bot: bool


class NameInUse(Exception):
    """A registered player already has that name."""


class WriteFailed(Exception):
    """A write that did not commit and will not: nothing of it is stored."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# SQLite result codes of failures that can pass: retried until the write commits.
PASSING_FAILURES = (
    "SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_FULL", "SQLITE_IOERR", "SQLITE_READONLY",
    "SQLITE_CANTOPEN", "SQLITE_PROTOCOL", "SQLITE_NOMEM",
)  # fmt: skip
RETRY_FIRST_S = 0.05
RETRY_MOST_S = 1.0


def passing(exc: BaseException) -> bool:
    """Is ``exc`` a failure of the database's surroundings, that a retry may get past?"""
    name = getattr(exc, "sqlite_errorname", None)
    return (
        isinstance(exc, sqlite3.OperationalError)
        and isinstance(name, str)
        and name.startswith(PASSING_FAILURES)
    )


@dataclass(frozen=True, slots=True)
class _NewPlayer:
    player: StoredPlayer
    token_hash: str


@dataclass(frozen=True, slots=True)
class _Abandon:
    series_id: str


_Write = Event | _NewPlayer | _Abandon | tournament_store.Abandon | pruning.Prune | daily_store.Draw


@dataclass(slots=True)
class _Item:
    writes: Sequence[_Write]
    future: asyncio.Future[None]
    chained: bool  # made by a room step: the writes after it may build on it


LostWrites = Callable[[Sequence[Event]], None]


class Storage:
    """The database: one writer thread, one reader connection."""

    def __init__(
        self,
        path: str,
        writer: sqlite3.Connection,
        reader: aiosqlite.Connection,
        batch_wait_s: float = 0.002,
    ):
        self.path = path
        self._batch_wait_s = batch_wait_s
        self._db = writer
        self._reader = reader
        self._queue: asyncio.Queue[_Item | None] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        # Why writes are waiting for the database (None: they are not).
        self.failing: str | None = None
        self._failing_since = 0.0
        self._closing = False
        # Told, synchronously, of the events of every write lost (see the module's doc).
        self.on_lost: LostWrites | None = None
        # The write connection is used by this one thread only, one batch at a time.
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="storage-writer")

    @classmethod
    async def open(cls, path: str | Path, *, batch_wait_s: float = 0.002) -> Storage:
        """Open (creating if needed) the database and start the writer.

        ``batch_wait_s``: how long the writer waits after a submission for more
        to write with it (every submitter waits that much longer for its commit).
        """
        path = str(path)
        writer, clashes = await asyncio.to_thread(_open_writer, path)
        identity.report(clashes)
        reader = await aiosqlite.connect(path)
        reader.row_factory = aiosqlite.Row
        storage = cls(path, writer, reader, batch_wait_s)
        storage._task = asyncio.create_task(storage._run(), name="storage-writer")
        return storage

    async def close(self) -> None:
        """Write everything queued, then close."""
        self._closing = True  # a write waiting for the database gives up
        if self._task is not None:
            await self._queue.put(None)
            await self._task
            self._task = None
        await self._reader.close()
        await asyncio.get_running_loop().run_in_executor(self._thread, self._db.close)
        self._thread.shutdown()

    # ------------------------------------------------------------------
    # Writing

    def persist(self, events: Sequence[Event]) -> asyncio.Future[None]:
        """Queue ``events``; the future resolves once they are committed.

        Resolution is in submission order, also for an empty list, so awaiting
        it before sending keeps messages in the order the rooms produced them.
        It fails with :class:`WriteFailed` if they cannot be stored.
        """
        return self._submit(events, chained=True)

    async def create_player(self, player: StoredPlayer, token_hash: str) -> None:
        """Register a player; raise :class:`NameInUse` for a taken registered name,
        :class:`WriteFailed` if it cannot be stored."""
        await self._submit([_NewPlayer(player, token_hash)], chained=False)

    def _submit(self, items: Sequence[_Write], *, chained: bool) -> asyncio.Future[None]:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Item(items, future, chained))
        return future

    async def _run(self) -> None:
        while True:
            item = await self._queue.get()
            if item is None:
                return
            if self._batch_wait_s > 0:
                await asyncio.sleep(self._batch_wait_s)
            more, stop = self._drain()
            stop = await self._commit([item, *more]) or stop
            if stop:
                return

    def _drain(self) -> tuple[list[_Item], bool]:
        """Everything queued now, and whether the close marker was among it."""
        items: list[_Item] = []
        while not self._queue.empty():
            more = self._queue.get_nowait()
            if more is None:
                return items, True
            items.append(more)
        return items, False

    async def _commit(self, items: list[_Item]) -> bool:
        """Write ``items`` in one transaction (one trip to the writer thread) and
        resolve their futures in order. If that fails, each alone, to pin the
        failure on its item: those before it still commit. True if the close
        marker was met while taking the queue behind a lost write."""
        try:
            outcomes = await self._attempt([item.writes for item in items])
        except Exception as exc:
            if len(items) == 1:
                return self._lost(items[0], exc, [])
            for i, item in enumerate(items):
                try:
                    (outcome,) = await self._attempt([item.writes])
                except Exception as alone:
                    if item.chained:
                        return self._lost(item, alone, items[i + 1 :])
                    self._lost(item, alone, [])
                    continue
                _resolve(item, outcome)
            return False
        for item, outcome in zip(items, outcomes, strict=True):
            _resolve(item, outcome)
        return False

    def _lost(self, item: _Item, exc: BaseException, behind: list[_Item]) -> bool:
        """``item`` cannot be stored. If it is chained, neither can anything already
        waiting behind it (``behind`` and the queue): the owner hears of all their
        events at once, before any other task runs, then their futures fail."""
        reason = _describe(exc)
        stopping = self._closing and passing(exc)
        if not item.chained and not stopping:
            log.warning("storage: a write failed (%s)", reason)
            _fail(item, f"not stored: {reason}")
            return False
        queued, stop = self._drain()
        rest = [*behind, *queued]
        if stopping:  # the server stops while the database cannot be written
            log.warning("storage: stopping with %d writes not stored (%s)", 1 + len(rest), reason)
            for lost in (item, *rest):
                _fail(lost, f"not stored: the server stopped first ({reason})")
            return stop
        log.error("storage: a write failed and is lost (%s), with %d waiting behind it;"
                  " their rooms go back to what is stored", reason, len(rest))  # fmt: skip
        if self.on_lost is not None:
            events = [w for lost in (item, *rest) for w in lost.writes if _is_event(w)]
            try:
                self.on_lost(events)
            except Exception:
                log.exception("storage: taking the lost writes back failed")
        _fail(item, f"not stored: {reason}")
        for lost in rest:
            _fail(lost, "not stored: a write before it failed")
        return stop

    async def _attempt(self, batch: list[Sequence[_Write]]) -> list[BaseException | None]:
        """Write ``batch``, retrying for as long as the failure is one that can pass."""
        if not any(batch):
            return [None] * len(batch)
        loop = asyncio.get_running_loop()
        delay = RETRY_FIRST_S
        while True:
            try:
                outcomes = await loop.run_in_executor(self._thread, _write_batch, self._db, batch)
            except Exception as exc:
                if not passing(exc) or self._closing:
                    raise
                if self.failing is None:
                    self._failing_since = time.monotonic()
                    log.error("storage: cannot write (%s): every reply waits until it can;"
                              " retrying", _describe(exc))  # fmt: skip
                self.failing = _describe(exc)
                await asyncio.sleep(delay)
                delay = min(delay * 2, RETRY_MOST_S)
                continue
            if self.failing is not None:
                log.warning("storage: writing again after %.1f s (%s)",
                            time.monotonic() - self._failing_since, self.failing)  # fmt: skip
                self.failing = None
            return outcomes

    async def prune(self, before_ms: int, chunk: int = 500) -> dict[str, int]:
        """Forget what nobody will read, older than ``before_ms`` (server.pruning): a
        chunk per trip through the writer, so that the games' writes go on between."""
        total = {"rooms": 0, "tournaments": 0}
        while True:
            item = pruning.Prune(before_ms, chunk)
            await self._submit([item], chained=False)
            for kind, n in item.deleted.items():
                total[kind] += n
            if max(item.deleted.values(), default=0) < chunk:
                return total

    # ------------------------------------------------------------------
    # Reading

    async def player_by_token_hash(self, token_hash: str) -> StoredPlayer | None:
        async with self._reader.execute(
            "SELECT id, name, guest, bot FROM players WHERE token_hash = ?", (token_hash,)
        ) as cur:
            row = await cur.fetchone()
        if row is None:
            return None
        return StoredPlayer(row["id"], row["name"], bool(row["guest"]), bool(row["bot"]))

    async def find_player(self, who: str) -> dict[str, Any] | None:
        """The player with id ``who``, or holding the key of the name ``who``."""
        return await identity.find_player(self._reader, who)

    async def shadowed_players(self) -> set[str]:
        """Players whose name's key an earlier player holds (kept from before keys)."""
        return await identity.shadowed(self._reader)

    async def match(self, match_id: str) -> dict[str, Any] | None:
        return await match_detail(self._reader, match_id)

    async def player_matches(self, who: str, limit: int = 100) -> dict[str, Any] | None:
        return await player_matches(self._reader, who, limit)

    async def recent_matches(self, limit: int = 20) -> list[dict[str, Any]]:
        return await recent_matches(self._reader, limit)

    async def ratings(self) -> list[tuple[str, Entry]]:
        """Every stored rating, as (pace, entry), for the lobby's rating book."""
        rows = await fetch_rows(
            self._reader,
            "SELECT r.*, p.name FROM ratings r JOIN players p ON p.id = r.player_id",
            (),
        )
        return [
            (
                row["pace"],
                Entry(
                    row["player_id"],
                    row["name"],
                    Rating(row["rating"], row["deviation"], row["volatility"]),
                    row["games"],
                    row["updated_ms"],
                ),
            )
            for row in rows
        ]

    async def unfinished(self, room_id: str | None = None) -> list[Resumable]:
        """Every series being played when the server last stopped, oldest first
        (``room_id``: only that room's, as stored)."""
        return await unfinished_series(self._reader, room_id)

    async def abandon(self, series_id: str) -> None:
        """Mark a series that could not be resumed, and its unfinished deal, abandoned."""
        await self._submit([_Abandon(series_id)], chained=False)

    async def unfinished_tournaments(self) -> list[ResumableTournament]:
        """Every tournament being run when the server last stopped, with its snapshot."""
        return await tournament_store.unfinished_tournaments(self._reader)

    async def abandon_tournament(self, tournament_id: str) -> None:
        """Mark a tournament that could not be resumed ``abandoned``."""
        await self._submit([tournament_store.Abandon(tournament_id)], chained=False)

    async def series(self, series_id: str) -> dict[str, Any] | None:
        return await series_detail(self._reader, series_id)

    async def table_series(self, series_id: str) -> StoredTable | None:
        """A tournament table's series as a restarted director reads it."""
        found = await series_detail(self._reader, series_id)
        if found is None:
            return None
        return StoredTable(
            deals=tuple(
                {pid: r["score"] for pid, r in deal["results"].items()}
                for deal in found["deals"]
                if deal["status"] == "finished"
            ),
            finished=found["status"] == "finished",
            winner_id=found["winner_id"],
        )

    async def player_ratings(self, who: str, limit: int = 100) -> dict[str, Any] | None:
        return await player_ratings(self._reader, who, limit)

    async def tournaments(self, limit: int = 100) -> list[dict[str, Any]]:
        return await tournament_store.tournament_list(self._reader, limit)

    async def tournament_page(
        self, limit: int, after: str | None
    ) -> tuple[list[dict[str, Any]], str | None]:
        """(BadCursor: ``after`` is not one of ours.)"""
        return await tournament_store.tournament_page(self._reader, limit, after)

    async def tournament(self, tournament_id: str) -> dict[str, Any] | None:
        return await tournament_store.tournament_detail(self._reader, tournament_id)

    async def tournament_boards(self, tournament_id: str) -> list[dict[str, Any]]:
        return await tournament_store.tournament_boards(self._reader, tournament_id)

    async def draw_daily(self, drawn: daily_store.Draw) -> None:
        """Store secrets for days that have none (a stored one is never replaced)."""
        await self._submit([drawn], chained=False)

    async def daily_secrets(self, since: int) -> tuple[dict[int, str], set[int]]:
        """The stored secrets of day ``since`` on, and the days whose embargo is lifted."""
        return (
            await daily_store.secrets(self._reader, since),
            await daily_store.lifted(self._reader),
        )

    async def daily_state(self, today: int) -> daily_store.DeskState:
        return await daily_store.desk_state(self._reader, today)

    async def daily_day(self, day: int, today: int) -> DayFacts:
        """Everything stored of a day of the daily deal, for server.daily.views to show."""
        return await daily_store.day_facts(self._reader, day, today)


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


# ----------------------------------------------------------------------
# The writer thread's side: plain sqlite3, called only from Storage._thread.


def _open_writer(path: str) -> tuple[sqlite3.Connection, list[identity.Clash]]:
    db = sqlite3.connect(path, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA foreign_keys=ON")
    db.executescript(SCHEMA)
    tournament_store.init(db)
    daily_store.init(db)
    pruning.init(db)
    for table, column, declaration in MIGRATIONS:
        have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        if column not in have:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
            if (table, column) == ("matches", "embargo"):
                for sql in _EMBARGO_EXISTING:
                    db.execute(sql)
            if (table, column) == ("series_players", "bot_seed"):
                for sql in _BOT_SEATS_EXISTING:
                    db.execute(sql)
    clashes = identity.index_names(db)
    # Series being played are resumed (Storage.unfinished); a match of no series
    # (an earlier version's) cannot be.
    db.execute(
        "UPDATE matches SET status = 'abandoned' WHERE status = 'playing' AND series_id IS NULL"
    )
    db.commit()
    return db, clashes


def _write_batch(
    db: sqlite3.Connection, batch: list[Sequence[_Write]]
) -> list[BaseException | None]:
    """Write every submission of ``batch`` in one transaction and commit it.

    Returns one outcome per submission: None, or :class:`NameInUse` for a
    registration refused (the rest of the batch still commits). Anything else
    that fails rolls the whole transaction back and raises: nothing of the
    batch is stored. Placements, the bulk of the traffic, go in with one
    ``executemany`` per run of consecutive placements, in submission order with
    everything else.
    """
    outcomes: list[BaseException | None] = []
    try:
        placements: list[tuple[object, ...]] = []
        for events in batch:
            failure: BaseException | None = None
            for event in events:
                if isinstance(event, CardPlaced):
                    placements.append(_placement_row(event))
                    continue
                if placements:
                    _insert_placements(db, placements)
                    placements = []
                if isinstance(event, _NewPlayer):
                    try:
                        _apply(db, event)
                    except sqlite3.IntegrityError as exc:  # the statement alone is undone
                        # A unique key taken (the name's key is checked by identity, which
                        # raises without a code); any other refusal is a failed write.
                        if getattr(exc, "sqlite_errorname", None) not in (
                            None,
                            "SQLITE_CONSTRAINT_UNIQUE",
                        ):
                            raise
                        failure = NameInUse(event.player.name)
                    continue
                _apply(db, event)
            outcomes.append(failure)
        if placements:
            _insert_placements(db, placements)
        db.commit()
    except BaseException:
        with contextlib.suppress(Exception):
            db.rollback()
        raise
    return outcomes


def _describe(exc: BaseException) -> str:
    name = getattr(exc, "sqlite_errorname", None)
    return f"{exc} [{name}]" if name else f"{type(exc).__name__}: {exc}"


def _resolve(item: _Item, outcome: BaseException | None) -> None:
    if item.future.done():
        return
    if outcome is not None:
        item.future.set_exception(outcome)
    else:
        item.future.set_result(None)


def _is_event(write: _Write) -> TypeGuard[Event]:
    return not isinstance(
        write, (_NewPlayer, _Abandon, tournament_store.Abandon, pruning.Prune, daily_store.Draw)
    )


def _fail(item: _Item, reason: str) -> None:
    if not item.future.done():
        item.future.set_exception(WriteFailed(reason))


def _placement_row(event: CardPlaced) -> tuple[object, ...]:
    return (
        event.match_id, event.player_id, event.turn, event.cell, event.card,
        event.elapsed_ms, int(event.auto), event.at_ms,
    )  # fmt: skip


def _insert_placements(db: sqlite3.Connection, rows: list[tuple[object, ...]]) -> None:
    db.executemany("INSERT INTO placements VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)


def _apply(db: sqlite3.Connection, event: _Write) -> None:
    if isinstance(event, pruning.Prune):
        pruning.apply(db, event)
        return
    if tournament_store.apply(db, event):  # type: ignore[arg-type]
        return
    if daily_store.apply(db, event):
        return
    match event:
        case _NewPlayer(player=p, token_hash=h):
            identity.new_player_row(db, p.id, p.name, p.guest, p.bot, h, _now_ms())
        case RoomOpened():
            db.execute(
                "INSERT OR IGNORE INTO rooms (id, name, visibility, pace, seats, card_clock_ms,"
                " deal_clock_ms, creator_id, server_commitment, created_ms, invite_code, deals,"
                " rated, origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    event.room_id, event.name, event.visibility, event.pace, event.seats,
                    event.card_clock_ms, event.deal_clock_ms, event.creator_id,
                    event.server_commitment, event.at_ms, event.invite_code, event.deals,
                    int(event.rated), event.origin,
                ),
            )  # fmt: skip
        case MatchBegan():
            # Bots are created on first use; people were stored when they said hello.
            db.executemany(
                "INSERT OR IGNORE INTO players (id, name, guest, bot, created_ms)"
                " VALUES (?, ?, ?, ?, ?)",
                [(p.id, p.name, int(p.guest), int(p.bot), _now_ms()) for _, p, _ in event.players],
            )
            if event.embargo:
                db.execute("INSERT OR IGNORE INTO embargoes (id) VALUES (?)", (event.embargo,))
            db.execute(
                "INSERT INTO matches (id, room_id, pace, status, seed_commitment,"
                " server_commitment, card_clock_ms, deal_clock_ms, started_ms, series_id, deal,"
                " embargo) VALUES (?, ?, ?, 'playing', ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    event.match_id, event.room_id, event.pace, event.seed_commitment,
                    event.server_commitment, event.card_clock_ms, event.deal_clock_ms,
                    event.at_ms, event.series_id or None, event.deal, event.embargo or None,
                ),
            )  # fmt: skip
            db.executemany(
                "INSERT INTO match_players VALUES (?, ?, ?, ?)",
                [(event.match_id, seat, p.id, c) for seat, p, c in event.players],
            )
            db.execute(
                "INSERT INTO seeds VALUES (?, ?, ?, ?)",
                (
                    event.match_id,
                    event.seed,
                    event.server_secret,
                    json.dumps([c for _, _, c in event.players]),
                ),
            )
        case CardPlaced():
            _insert_placements(db, [_placement_row(event)])
        case MatchEnded():
            db.execute(
                "UPDATE matches SET status = 'finished', starter = ?, finished_ms = ? WHERE id = ?",
                (event.starter, event.at_ms, event.match_id),
            )
            db.executemany(
                "INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        event.match_id, o.player_id, o.seat, o.rank, o.score, o.time_used_ms,
                        json.dumps(list(o.cells)), json.dumps(o.detail),
                    )
                    for o in event.outcomes
                ],
            )  # fmt: skip
        case _Abandon(series_id=series_id):
            db.execute("UPDATE series SET status = 'abandoned' WHERE id = ?", (series_id,))
            db.execute(
                "UPDATE matches SET status = 'abandoned'"
                " WHERE series_id = ? AND status = 'playing'",
                (series_id,),
            )
        case SeriesBegan():
            db.executemany(
                "INSERT OR IGNORE INTO players (id, name, guest, bot, created_ms)"
                " VALUES (?, ?, ?, ?, ?)",
                [(p.id, p.name, int(p.guest), int(p.bot), _now_ms()) for p in event.players],
            )
            db.execute(
                "INSERT INTO series (id, room_id, best_of, rated, pace, origin, status,"
                " started_ms, root_secret, secret_scheme)"
                " VALUES (?, ?, ?, ?, ?, ?, 'playing', ?, ?, ?)",
                (
                    event.series_id, event.room_id, event.best_of, int(event.rated),
                    event.pace, event.origin, event.at_ms, event.root_secret,
                    event.secret_scheme,
                ),
            )  # fmt: skip
            bots = event.seat_bots or (("", ""),) * len(event.players)
            db.executemany(
                "INSERT INTO series_players (series_id, seat, player_id, strategy, bot_seed)"
                " VALUES (?, ?, ?, ?, ?)",
                [
                    (event.series_id, seat, p.id, strategy, seed)
                    for seat, (p, (strategy, seed)) in enumerate(
                        zip(event.players, bots, strict=True)
                    )
                ],
            )
        case SeriesEnded():
            standings = [
                {"player_id": pid, "deals_won": won, "points": points, "time_used_ms": used,
                 "forfeited": forfeited}
                for pid, won, points, used, forfeited in event.standings
            ]  # fmt: skip
            db.execute(
                "UPDATE series SET status = ?, winner_id = ?, deals = ?,"
                " standings = ?, finished_ms = ? WHERE id = ?",
                (
                    "aborted" if event.aborted else "finished", event.winner_id, event.deals,
                    json.dumps(standings), event.at_ms, event.series_id,
                ),
            )  # fmt: skip
        case EmbargoLifted():
            db.execute(
                "INSERT INTO embargoes (id, lifted_ms) VALUES (?, ?) ON CONFLICT (id)"
                " DO UPDATE SET lifted_ms = COALESCE(embargoes.lifted_ms, excluded.lifted_ms)",
                (event.embargo, event.at_ms),
            )
        case Abandoned():
            db.execute(
                "INSERT INTO abandonments VALUES (?, ?, ?, ?, ?, ?)",
                (
                    event.player_id, event.room_id, event.series_id, event.match_id,
                    event.kind, event.at_ms,
                ),
            )  # fmt: skip
        case RatingChanged():
            rating, deviation, volatility = event.after
            db.execute(
                "INSERT INTO ratings VALUES (?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (player_id, pace) DO UPDATE SET rating = excluded.rating,"
                " deviation = excluded.deviation, volatility = excluded.volatility,"
                " games = excluded.games, updated_ms = excluded.updated_ms",
                (event.player_id, event.pool, rating, deviation, volatility, event.games,
                 event.at_ms),
            )  # fmt: skip
            db.execute(
                "INSERT INTO rating_history VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    event.player_id, event.pool, event.series_id, event.room_id,
                    event.opponent_id, event.score, event.before[0], event.before[1],
                    rating, deviation, volatility, event.at_ms,
                ),
            )  # fmt: skip


# ----------------------------------------------------------------------
# History queries, shared by the HTTP endpoints and `cribsquares history`.
# What they return is what anyone may see: server.visibility decides (a match
# still being played, or under its tournament round's embargo, shows who plays
# it and nothing of its cards), and lists only what may be listed publicly.


async def match_detail(db: aiosqlite.Connection, match_id: str) -> dict[str, Any] | None:
    """One match as anyone may see it (server.visibility.public_match)."""
    facts = await _match_facts(db, match_id)
    return None if facts is None else visibility.public_match(facts)


async def _match_facts(db: aiosqlite.Connection, match_id: str) -> dict[str, Any] | None:
    """Everything stored of a match, its embargo included: for visibility to judge."""
    found = await fetch_rows(
        db,
        "SELECT m.*, r.name AS room_name, e.lifted_ms AS embargo_lifted_ms FROM matches m"
        " JOIN rooms r ON r.id = m.room_id LEFT JOIN embargoes e ON e.id = m.embargo"
        " WHERE m.id = ?",
        (match_id,),
    )
    if not found:
        return None
    m = found[0]
    finished = m["status"] == "finished"
    players = await fetch_rows(
        db,
        "SELECT mp.seat, mp.contribution, p.id, p.name, p.guest, p.bot,"
        " r.rank, r.score, r.time_used_ms, r.cells, r.detail"
        " FROM match_players mp JOIN players p ON p.id = mp.player_id"
        " LEFT JOIN results r ON r.match_id = mp.match_id AND r.player_id = mp.player_id"
        " WHERE mp.match_id = ? ORDER BY mp.seat",
        (match_id,),
    )
    placements: dict[str, list[dict[str, Any]]] = {}
    seed: dict[str, Any] = {}
    if finished:
        for row in await fetch_rows(
            db,
            "SELECT player_id, turn, cell, card, elapsed_ms, auto FROM placements"
            " WHERE match_id = ? ORDER BY player_id, turn",
            (match_id,),
        ):
            placements.setdefault(row["player_id"], []).append(
                {
                    "turn": row["turn"],
                    "cell": row["cell"],
                    "card": row["card"],
                    "elapsed_ms": row["elapsed_ms"],
                    "auto": bool(row["auto"]),
                }
            )
        seeds = await fetch_rows(db, "SELECT * FROM seeds WHERE match_id = ?", (match_id,))
        if seeds:
            seed = {"seed": seeds[0]["seed"], "server_secret": seeds[0]["server_secret"]}
    boards = []
    for p in players:
        board: dict[str, Any] = {
            "seat": p["seat"],
            "player": {"id": p["id"], "name": p["name"], "guest": bool(p["guest"]),
                       "bot": bool(p["bot"])},
            "contribution": p["contribution"],
        }  # fmt: skip
        if finished and p["rank"] is not None:
            board.update(
                rank=p["rank"],
                score=p["score"],
                time_used_ms=p["time_used_ms"],
                cells=json.loads(p["cells"]),
                placements=placements.get(p["id"], []),
                detail=json.loads(p["detail"]),
            )
        boards.append(board)
    if finished:
        boards.sort(key=lambda b: (b["rank"], b["seat"]))
    return {
        "match_id": m["id"],
        "room": {"id": m["room_id"], "name": m["room_name"]},
        "series_id": m["series_id"],
        "deal": m["deal"],
        "pace": m["pace"],
        "status": m["status"],
        "card_clock_ms": m["card_clock_ms"],
        "deal_clock_ms": m["deal_clock_ms"],
        "started_ms": m["started_ms"],
        "finished_ms": m["finished_ms"],
        "seed_commitment": m["seed_commitment"],
        "server_commitment": m["server_commitment"],
        "contributions": [b["contribution"] for b in sorted(boards, key=lambda b: b["seat"])],
        "starter": m["starter"] if finished else None,
        "seed": seed.get("seed"),
        "server_secret": seed.get("server_secret"),
        "boards": boards,
        "embargo": m["embargo"],
        "embargo_lifted": m["embargo_lifted_ms"] is not None,
    }


def _summary(row: aiosqlite.Row) -> dict[str, Any]:
    return {
        "match_id": row["id"],
        "room": row["room_name"],
        "pace": row["pace"],
        "status": row["status"],
        "started_ms": row["started_ms"],
        "finished_ms": row["finished_ms"],
        "players": row["players"],
    }


_SUMMARY_SQL = (
    "SELECT m.id, m.pace, m.status, m.started_ms, m.finished_ms, r.name AS room_name,"
    " (SELECT COUNT(*) FROM match_players x WHERE x.match_id = m.id) AS players"
)


async def unfinished_series(
    db: aiosqlite.Connection, room_id: str | None = None
) -> list[Resumable]:
    found = []
    for row in await fetch_rows(
        db,
        "SELECT s.*, r.name, r.visibility, r.invite_code, r.seats, r.card_clock_ms,"
        " r.deal_clock_ms, r.creator_id FROM series s JOIN rooms r ON r.id = s.room_id"
        " WHERE s.status = 'playing' AND (? IS NULL OR s.room_id = ?) ORDER BY s.started_ms",
        (room_id, room_id),
    ):
        sid = row["id"]
        seated = await fetch_rows(
            db,
            "SELECT p.*, sp.strategy, sp.bot_seed FROM series_players sp"
            " JOIN players p ON p.id = sp.player_id WHERE sp.series_id = ? ORDER BY sp.seat",
            (sid,),
        )
        players = tuple(
            PlayerRecord(p["id"], p["name"], bool(p["guest"]), bool(p["bot"])) for p in seated
        )
        seat_bots = tuple((p["strategy"], p["bot_seed"]) for p in seated)
        deals = []
        embargo: tuple[str | None, bool] = (None, False)  # the last deal's
        for m in await fetch_rows(
            db,
            "SELECT m.id, m.deal, m.status, m.started_ms, m.embargo, e.lifted_ms, s.seed,"
            " s.contributions FROM matches m JOIN seeds s ON s.match_id = m.id"
            " LEFT JOIN embargoes e ON e.id = m.embargo"
            " WHERE m.series_id = ? ORDER BY m.deal",
            (sid,),
        ):
            finished = m["status"] == "finished"
            embargo = (m["embargo"], m["lifted_ms"] is not None)
            outcomes: dict[str, tuple[int, int, int]] = {}
            placements: tuple[StoredPlacement, ...] = ()
            if finished:
                for r in await fetch_rows(
                    db, "SELECT * FROM results WHERE match_id = ?", (m["id"],)
                ):
                    outcomes[r["player_id"]] = (r["rank"], r["score"], r["time_used_ms"])
            else:
                placements = tuple(
                    StoredPlacement(
                        p["player_id"],
                        p["turn"],
                        p["cell"],
                        p["card"],
                        p["elapsed_ms"],
                        bool(p["auto"]),
                        p["placed_ms"],
                    )
                    for p in await fetch_rows(
                        db,
                        "SELECT * FROM placements WHERE match_id = ? ORDER BY placed_ms, turn",
                        (m["id"],),
                    )
                )
            deals.append(
                StoredDeal(
                    match_id=m["id"],
                    deal=m["deal"],
                    seed=m["seed"],
                    contributions=tuple(json.loads(m["contributions"])),
                    started_ms=m["started_ms"],
                    finished=finished,
                    outcomes=outcomes,
                    placements=placements,
                )
            )
        gone = await fetch_rows(
            db,
            "SELECT player_id, kind FROM abandonments WHERE series_id = ? ORDER BY at_ms, rowid",
            (sid,),
        )
        found.append(
            Resumable(
                room_id=row["room_id"],
                name=row["name"],
                visibility=row["visibility"],
                invite_code=row["invite_code"],
                pace=row["pace"],
                seats=row["seats"],
                card_clock_ms=row["card_clock_ms"],
                deal_clock_ms=row["deal_clock_ms"],
                deals_best_of=row["best_of"],
                rated=bool(row["rated"]),
                origin=row["origin"],
                creator_id=row["creator_id"],
                series_id=sid,
                root_secret=row["root_secret"],
                players=players,
                deals=tuple(deals),
                forfeited=tuple(dict.fromkeys(g["player_id"] for g in gone if g["kind"] == "left")),
                timed_out=frozenset(g["player_id"] for g in gone if g["kind"] == "timeout"),
                secret_scheme=row["secret_scheme"],
                embargo=embargo[0],
                embargo_lifted=embargo[1],
                seat_bots=seat_bots,
            )
        )
    return found


async def series_detail(db: aiosqlite.Connection, series_id: str) -> dict[str, Any] | None:
    """A series: its settings, players, deals (match ids with scores) and final standings."""
    found = await fetch_rows(db, "SELECT * FROM series WHERE id = ?", (series_id,))
    if not found:
        return None
    row = found[0]
    players = [
        _player_json(p)
        for p in await fetch_rows(
            db,
            "SELECT p.* FROM series_players sp JOIN players p ON p.id = sp.player_id"
            " WHERE sp.series_id = ? ORDER BY sp.seat",
            (series_id,),
        )
    ]
    deals = []
    for m in await fetch_rows(
        db,
        "SELECT id, deal, status, started_ms, finished_ms FROM matches WHERE series_id = ?"
        " ORDER BY deal",
        (series_id,),
    ):
        scores = {
            r["player_id"]: {"rank": r["rank"], "score": r["score"]}
            for r in await fetch_rows(
                db, "SELECT player_id, rank, score FROM results WHERE match_id = ?", (m["id"],)
            )
        }
        deals.append(
            {"match_id": m["id"], "deal": m["deal"], "status": m["status"], "results": scores}
        )
    return {
        "series_id": row["id"],
        "room_id": row["room_id"],
        "best_of": row["best_of"],
        "rated": bool(row["rated"]),
        "pace": row["pace"],
        "origin": row["origin"],
        "status": row["status"],
        "players": players,
        "deals": deals,
        "standings": json.loads(row["standings"]) if row["standings"] else None,
        "winner_id": row["winner_id"],
        "started_ms": row["started_ms"],
        "finished_ms": row["finished_ms"],
    }


async def _find_player(db: aiosqlite.Connection, who: str) -> dict[str, Any] | None:
    """A player given by id or by name (server.identity: the holder of the name's key)."""
    return await identity.find_player(db, who)


def _player_json(p: aiosqlite.Row | dict[str, Any]) -> dict[str, Any]:
    return {"id": p["id"], "name": p["name"], "guest": bool(p["guest"]), "bot": bool(p["bot"])}


async def _abandoned(db: aiosqlite.Connection, player_id: str) -> dict[str, int]:
    rows = await fetch_rows(
        db,
        "SELECT kind, COUNT(*) AS n FROM abandonments WHERE player_id = ? GROUP BY kind",
        (player_id,),
    )
    counts = {"left": 0, "timeout": 0, "idle": 0}
    counts.update({row["kind"]: row["n"] for row in rows})
    return counts


async def player_ratings(db: aiosqlite.Connection, who: str, limit: int) -> dict[str, Any] | None:
    """A player's rating per pace, its rating history (newest first) and abandonments."""
    p = await _find_player(db, who)
    if p is None:
        return None
    ratings = {
        row["pace"]: {
            "rating": round(row["rating"], 1),
            "deviation": round(row["deviation"], 1),
            "volatility": round(row["volatility"], 6),
            "games": row["games"],
            "provisional": row["deviation"] > PROVISIONAL_DEVIATION,
        }
        for row in await fetch_rows(db, "SELECT * FROM ratings WHERE player_id = ?", (p["id"],))
    }
    history = [
        {
            "pace": row["pace"],
            "room_id": row["room_id"],
            "series_id": row["series_id"],
            "at_ms": row["at_ms"],
            "opponent": row["opponent"],
            "result": {1.0: "win", 0.5: "draw", 0.0: "loss"}.get(row["score"], "draw"),
            "before": round(row["rating_before"]),
            "after": round(row["rating_after"]),
            "deviation_before": round(row["deviation_before"]),
            "deviation_after": round(row["deviation_after"]),
        }
        for row in await fetch_rows(
            db,
            "SELECT h.*, o.name AS opponent FROM rating_history h"
            " JOIN players o ON o.id = h.opponent_id"
            " WHERE h.player_id = ? ORDER BY h.at_ms DESC, h.rowid DESC LIMIT ?",
            (p["id"], limit),
        )
    ]
    return {
        "player": _player_json(p),
        "ratings": ratings,
        "history": history,
        "abandoned": await _abandoned(db, p["id"]),
    }


async def player_matches(db: aiosqlite.Connection, who: str, limit: int) -> dict[str, Any] | None:
    """The matches of a player given by id or name (registered names first) that may
    be listed publicly (server.visibility: not a private room's)."""
    p = await _find_player(db, who)
    if p is None:
        return None
    rows = await fetch_rows(
        db,
        _SUMMARY_SQL + ", res.rank, res.score, res.time_used_ms"
        " FROM match_players mp JOIN matches m ON m.id = mp.match_id"
        " JOIN rooms r ON r.id = m.room_id"
        " LEFT JOIN results res ON res.match_id = m.id AND res.player_id = mp.player_id"
        f" WHERE mp.player_id = ? AND {visibility.LISTED_ROOM_SQL}"
        " ORDER BY m.started_ms DESC LIMIT ?",
        (p["id"], limit),
    )
    opponents = await _opponents(db, [row["id"] for row in rows], p["id"])
    matches = []
    for row in rows:
        item = _summary(row)
        item.update(rank=row["rank"], score=row["score"], time_used_ms=row["time_used_ms"],
                    opponents=opponents.get(row["id"], []))  # fmt: skip
        matches.append(item)
    return {
        "player": _player_json(p),
        "matches": matches,
        "abandoned": await _abandoned(db, p["id"]),
    }


async def _opponents(
    db: aiosqlite.Connection, match_ids: list[str], player_id: str
) -> dict[str, list[dict[str, Any]]]:
    """The other players of each match, in seat order, with their rank and score
    (null until the match is over: results are stored only then)."""
    found: dict[str, list[dict[str, Any]]] = {}
    for start in range(0, len(match_ids), 500):  # SQLite's bound-parameter limit
        chunk = match_ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        rows = await fetch_rows(
            db,
            "SELECT mp.match_id, mp.seat, p.id, p.name, p.guest, p.bot, res.rank, res.score"
            " FROM match_players mp JOIN players p ON p.id = mp.player_id"
            " LEFT JOIN results res ON res.match_id = mp.match_id AND res.player_id = mp.player_id"
            f" WHERE mp.match_id IN ({marks}) AND mp.player_id != ? ORDER BY mp.match_id, mp.seat",
            (*chunk, player_id),
        )
        for row in rows:
            found.setdefault(row["match_id"], []).append(
                {"player": _player_json(row), "rank": row["rank"], "score": row["score"]}
            )
    return found


async def recent_matches(db: aiosqlite.Connection, limit: int) -> list[dict[str, Any]]:
    rows = await fetch_rows(
        db,
        _SUMMARY_SQL + " FROM matches m JOIN rooms r ON r.id = m.room_id"
        f" WHERE {visibility.LISTED_ROOM_SQL} ORDER BY m.started_ms DESC LIMIT ?",
        (limit,),
    )
    return [_summary(row) for row in rows]
