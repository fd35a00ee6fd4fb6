"""The store the server runs on: one writer, batched commits, the reads; either engine.

The storage layer only persists what rooms decided (server.events) and answers
read-only history queries; it never decides anything about a game.

One writer: a single task drains whatever has queued up and hands it, in one
call, to the thread that owns the write connection (the backend's: plain
``sqlite3``, or psycopg's synchronous connection to PostgreSQL), which writes
it in one transaction (placements with ``executemany``) and commits
once; then the task resolves the waiting futures in order. The commit is a
group commit: the task takes what is queued as soon as the previous commit is
done, so what arrived while a commit was being written goes in the next one
(what the frames read in one turn of the event loop submit is all queued
before the task runs: its wake-up is scheduled behind their handlers). By
default it waits for nothing else (``batch_wait_s`` adds a gathering wait
after a batch's first submission): a timer makes the event loop sleep and
wake once more a batch, which was, measured, the largest cost of the storage
path to the loop (docs/benchmarks.md, *Sixth optimisation round*). The
WebSocket handler awaits that future before sending the messages a command
produced, so a placement is committed before it is acknowledged, yet a burst
of placements costs one commit and one trip to the thread. Reads use a second
connection (on SQLite, WAL mode lets it read while the writer writes).

A write that fails never resolves as success (docs/operations.md, *When the
database cannot be written*). A failure that can pass (the disk full, the file
read-only, locked by another program, an I/O error; on PostgreSQL also the
connection lost or the server restarting: the backend says which) is retried, with backoff,
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
import logging
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from server import identity
from server.daily.views import DayFacts
from server.events import Event
from server.ratings import Entry
from server.records import DeskState, Draw, Fence, LostWrites, NameInUse, StoredPlayer, WriteFailed
from server.recovery import Resumable, ResumableTournament, StoredTable
from server.storage import (
    daily,
    history,
    migrations,
    players,
    pruning,
    quarantine,
    series,
    tournaments,
)
from server.storage.backends import backend_for
from server.storage.records import AbandonSeries, NewPlayer
from server.storage.sql import Backend, Reader, Writer, first
from server.storage.writes import Write, is_event, write_batch

log = logging.getLogger(__name__)

__all__ = ["NameInUse", "Storage", "StoredPlayer", "WriteFailed"]

RETRY_FIRST_S = 0.05
RETRY_MOST_S = 1.0


@dataclass(slots=True)
class _Item:
    writes: Sequence[Write]
    future: asyncio.Future[None]
    chained: bool  # made by a room step: the writes after it may build on it


class Storage:
    """The database: one writer thread, one reader connection, on either backend."""

    def __init__(
        self,
        backend: Backend,
        writer: Writer,
        reader: Reader,
        batch_wait_s: float = 0.0,
        thread: ThreadPoolExecutor | None = None,
    ):
        self.backend = backend
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
        self._thread = thread or ThreadPoolExecutor(1, thread_name_prefix="storage-writer")

    @classmethod
    async def open(cls, store: str | Path, *, opened_ms: int, batch_wait_s: float = 0.0) -> Storage:
        """Open the store (a SQLite file, created if needed, or a ``postgresql://`` URL),
        bring its schema up to date (server.storage.migrations, each migration applied
        recorded at ``opened_ms``, the caller's time) and start the writer.

        ``batch_wait_s``: how long the writer waits after a batch's first submission
        for more to write with it (every submitter waits that much longer for its
        commit); 0, the default, commits what is queued as soon as the previous
        commit is done.
        """
        backend = backend_for(str(store))
        # The thread that will own the write connection opens it.
        thread = ThreadPoolExecutor(1, thread_name_prefix="storage-writer")
        loop = asyncio.get_running_loop()
        try:
            writer, clashes = await loop.run_in_executor(thread, _open_writer, backend, opened_ms)
        except BaseException:
            thread.shutdown()
            raise
        identity.report(clashes)
        try:
            reader = await backend.open_reader()
        except BaseException:
            await loop.run_in_executor(thread, writer.close)
            thread.shutdown()
            raise
        storage = cls(backend, writer, reader, batch_wait_s, thread)
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

    def persist(
        self, events: Sequence[Event], fences: Sequence[Fence] = ()
    ) -> asyncio.Future[None]:
        """Queue ``events``; the future resolves once they are committed.

        Resolution is in submission order, also for an empty list, so awaiting
        it before sending keeps messages in the order the rooms produced them.
        It fails with :class:`WriteFailed` if they cannot be stored.

        ``fences`` (a cluster node's, for the rooms the events concern) are checked
        in the same transaction: if one is stale the write fails (WriteFailed) and
        nothing of it is stored.
        """
        return self._submit([*fences, *events] if fences else events, chained=True)

    async def create_player(self, player: StoredPlayer, token_hash: str, at_ms: int) -> None:
        """Register a player at ``at_ms``; raise :class:`NameInUse` for a taken
        registered name, :class:`WriteFailed` if it cannot be stored."""
        await self._submit([NewPlayer(player, token_hash, at_ms)], chained=False)

    def _submit(self, items: Sequence[Write], *, chained: bool) -> asyncio.Future[None]:
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
        reason = self.backend.describe(exc)
        stopping = self._closing and self.backend.passing(exc)
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
            events = [w for lost in (item, *rest) for w in lost.writes if is_event(w)]
            try:
                self.on_lost(events)
            except Exception:
                log.exception("storage: taking the lost writes back failed")
        _fail(item, f"not stored: {reason}")
        for lost in rest:
            _fail(lost, "not stored: a write before it failed")
        return stop

    async def _attempt(self, batch: list[Sequence[Write]]) -> list[BaseException | None]:
        """Write ``batch``, retrying for as long as the failure is one that can pass."""
        if not any(batch):
            return [None] * len(batch)
        loop = asyncio.get_running_loop()
        delay = RETRY_FIRST_S
        while True:
            try:
                outcomes = await loop.run_in_executor(self._thread, self._write, batch)
            except Exception as exc:
                if not self.backend.passing(exc) or self._closing:
                    raise
                if self.failing is None:
                    self._failing_since = time.monotonic()
                    log.error("storage: cannot write (%s): every reply waits until it can;"
                              " retrying", self.backend.describe(exc))  # fmt: skip
                self.failing = self.backend.describe(exc)
                await asyncio.sleep(delay)
                delay = min(delay * 2, RETRY_MOST_S)
                continue
            if self.failing is not None:
                log.warning("storage: writing again after %.1f s (%s)",
                            time.monotonic() - self._failing_since, self.failing)  # fmt: skip
                self.failing = None
            return outcomes

    def _write(self, batch: list[Sequence[Write]]) -> list[BaseException | None]:
        """On the writer's thread: ``batch`` in one transaction, committed."""
        with self._db.transaction() as tx:
            return write_batch(tx, batch, self.backend.unique_violation)

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
        row = await players.by_token_hash(self._reader, token_hash)
        if row is None:
            return None
        return StoredPlayer(row["id"], row["name"], bool(row["guest"]), bool(row["bot"]))

    async def find_player(self, who: str) -> dict[str, Any] | None:
        """The player with id ``who``, or holding the key of the name ``who``."""
        return await players.find_player(self._reader, who)

    async def shadowed_players(self) -> set[str]:
        """Players whose name's key an earlier player holds (kept from before keys)."""
        return await players.shadowed(self._reader)

    async def newest_fence(self) -> int:
        """The largest lease token any cluster node has written under (0: none)."""
        row = await first(self._reader, "SELECT MAX(token) AS token FROM fences")
        return int(row["token"] or 0) if row is not None else 0

    async def match(self, match_id: str, viewer: str | None = None) -> dict[str, Any] | None:
        return await history.match_detail(self._reader, match_id, viewer)

    async def player_matches(
        self, who: str, limit: int = 100, viewer: str | None = None
    ) -> dict[str, Any] | None:
        return await history.player_matches(self._reader, who, limit, viewer)

    async def recent_matches(self, limit: int = 20) -> list[dict[str, Any]]:
        return await history.recent_matches(self._reader, limit)

    async def ratings(self) -> list[tuple[str, Entry]]:
        """Every stored rating, as (pace, entry), for the lobby's rating book."""
        return await history.ratings(self._reader)

    async def unfinished(self, room_id: str | None = None) -> list[Resumable]:
        """Every series being played when the server last stopped, oldest first
        (``room_id``: only that room's, as stored)."""
        return await series.unfinished_series(self._reader, room_id)

    async def abandon(self, series_id: str) -> None:
        """Mark a series that could not be resumed, and its unfinished deal, abandoned."""
        await self._submit([AbandonSeries(series_id)], chained=False)

    async def unfinished_tournaments(self) -> list[ResumableTournament]:
        """Every tournament being run when the server last stopped, with its snapshot."""
        return await tournaments.unfinished_tournaments(self._reader)

    async def abandon_tournament(self, tournament_id: str, at_ms: int) -> None:
        """Mark a tournament that could not be resumed ``abandoned`` (at ``at_ms``)."""
        await self._submit([tournaments.Abandon(tournament_id, at_ms)], chained=False)

    async def set_aside(
        self, kind: str, game_id: str, release: str, reason: str, at_ms: int
    ) -> None:
        """Record that this release could not resume ``game_id`` at ``at_ms``
        (storage.quarantine)."""
        await self._submit([quarantine.SetAside(kind, game_id, release, reason, at_ms)],
                           chained=False)  # fmt: skip

    async def resumed_again(self, kind: str, game_id: str) -> None:
        """``game_id``, set aside by an earlier start, is resumed: its record goes."""
        await self._submit([quarantine.Resumed(kind, game_id)], chained=False)

    async def set_aside_games(self) -> list[dict[str, Any]]:
        """Every game a start set aside (storage.quarantine), oldest first."""
        return await quarantine.listed(self._reader)

    async def series(self, series_id: str) -> dict[str, Any] | None:
        return await series.series_detail(self._reader, series_id)

    async def table_series(self, series_id: str) -> StoredTable | None:
        """A tournament table's series as a restarted director reads it: all of it,
        results under an embargo included (the director decides what it shows)."""
        found = await series.series_facts(self._reader, series_id)
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
        return await history.player_ratings(self._reader, who, limit)

    async def tournaments(self, limit: int = 100) -> list[dict[str, Any]]:
        return await tournaments.tournament_list(self._reader, limit)

    async def tournament_page(
        self, limit: int, after: str | None, status: str | None = None
    ) -> tuple[list[dict[str, Any]], str | None]:
        """(BadCursor: ``after`` is not one of ours.)"""
        return await tournaments.tournament_page(self._reader, limit, after, status)

    async def tournament(self, tournament_id: str) -> dict[str, Any] | None:
        return await tournaments.tournament_detail(self._reader, tournament_id)

    async def tournament_boards(self, tournament_id: str) -> list[dict[str, Any]]:
        return await tournaments.tournament_boards(self._reader, tournament_id)

    async def draw_daily(self, drawn: Draw) -> None:
        """Store secrets for days that have none (a stored one is never replaced)."""
        await self._submit([drawn], chained=False)

    async def daily_secrets(self, since: int) -> tuple[dict[int, str], set[int]]:
        """The stored secrets of day ``since`` on, and the days whose embargo is lifted."""
        return (
            await daily.secrets(self._reader, since),
            await daily.lifted(self._reader),
        )

    async def daily_state(self, today: int) -> DeskState:
        return await daily.desk_state(self._reader, today)

    async def daily_day(self, day: int, today: int) -> DayFacts:
        """Everything stored of a day of the daily deal, for server.daily.views to show."""
        return await daily.day_facts(self._reader, day, today)


# ----------------------------------------------------------------------
# The writer thread's side, called only from the writer's thread.


def _open_writer(backend: Backend, opened_ms: int) -> tuple[Writer, list[identity.Clash]]:
    """Connect, migrate the schema, key the names: one transaction."""
    writer = backend.open_writer()
    try:
        with writer.transaction() as tx:
            applied = migrations.migrate(tx, at_ms=opened_ms)
            clashes = players.index_names(tx)
            tournaments.ensure_cursor_key(tx)
            # Series being played are resumed (Storage.unfinished); a match of no
            # series (an earlier version's) cannot be.
            tx.execute(
                "UPDATE matches SET status = 'abandoned'"
                " WHERE status = 'playing' AND series_id IS NULL"
            )
    except BaseException:
        writer.close()
        raise
    if applied:
        log.info("storage: %s migrated to schema version %d (applied %s)", backend.where,
                 applied[-1], ", ".join(map(str, applied)))  # fmt: skip
    return writer, clashes


def _resolve(item: _Item, outcome: BaseException | None) -> None:
    if item.future.done():
        return
    if outcome is not None:
        item.future.set_exception(outcome)
    else:
        item.future.set_result(None)


def _fail(item: _Item, reason: str) -> None:
    if not item.future.done():
        item.future.set_exception(WriteFailed(reason))
