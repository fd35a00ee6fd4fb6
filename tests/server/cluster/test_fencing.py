"""The store's fence, on SQLite and PostgreSQL: a write under a lease token older than the
newest stored for its key is refused."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

import pytest

from protocol.rooms import Ready
from server.storage import Fence, Storage, StoredPlayer, WriteFailed
from server.storage.sql import NO_ARGS
from server.storage.writes import write_batch
from tests.server.roomkit import ALICE, Mailbox, make_room, place
from tests.server.stores import StoreUnderTest


async def test_a_stale_token_cannot_write_and_a_newer_one_can(store: StoreUnderTest) -> None:
    storage = await Storage.open(store.target, opened_ms=0)
    lost: list[object] = []
    storage.on_lost = lost.append
    try:
        await storage.persist([], [Fence("room:r1", 5)])
        await storage.persist([], [Fence("room:r1", 5)])  # the same owner again
        await storage.persist([], [Fence("room:r2", 1)])  # another room, its own tokens
        with pytest.raises(WriteFailed, match="newer owner"):
            await storage.persist([], [Fence("room:r1", 4)])  # the deposed owner
        assert lost  # the owner heard at once, before anything else ran
        await storage.persist([], [Fence("room:r1", 6)])  # the next owner
        with pytest.raises(WriteFailed):
            await storage.persist([], [Fence("room:r1", 5)])
    finally:
        await storage.close()
    assert store.rows("SELECT key, token FROM fences ORDER BY key") == [
        ("room:r1", 6),
        ("room:r2", 1),
    ]


class _Recording:
    """A transaction that records its statements (every one changes one row)."""

    dialect = "sqlite"

    def __init__(self) -> None:
        self.statements: list[tuple[str, object]] = []

    def execute(self, sql: str, args: Mapping[str, object] = NO_ARGS) -> int:
        self.statements.append((sql.split()[0], list(args.values())))
        return len(args) // 2 if sql.startswith("INSERT INTO fences") else 1

    def write(self, sql: str, args: Mapping[str, object] = NO_ARGS) -> None:
        self.statements.append((sql.split()[0], list(args.values())))

    def expect(self, sql: str, args: Mapping[str, object], rows: int, failure: Exception) -> None:
        self.statements.append((sql.split()[0], list(args.values())))

    def executemany(self, sql: str, rows: object) -> None:
        self.statements.append((sql.split()[0], rows))

    def insert(self, table: str, columns: object, rows: object, **_: object) -> None:
        self.statements.append((f"INSERT {table}", rows))

    def append(self, table: str, columns: object, rows: object) -> None:
        self.statements.append((f"APPEND {table}", rows))


def test_a_fence_is_written_once_per_transaction() -> None:
    """Every step of an owner carries its fence; a batch of steps writes it once per
    key and token, all the keys of one token in one statement, and a key with a
    different token too (a new lease) a statement a token, in order."""
    tx = _Recording()
    steps = [[Fence("room:r1", 5)], [Fence("room:r1", 5), Fence("room:r2", 1)],
             [Fence("room:r1", 5)], [Fence("room:r1", 6)], [Fence("room:r3", 2)]]  # fmt: skip
    assert write_batch(tx, steps, lambda exc: False) == [None] * 5
    assert [args for _, args in tx.statements] == [
        ["room:r2", 1, "room:r3", 2],
        ["room:r1", 5],
        ["room:r1", 6],
    ]


async def test_one_stale_fence_among_many_is_pinned_on_its_step(store: StoreUnderTest) -> None:
    """Fences of many rooms go in one statement: one stale among them fails the batch,
    and the writer, trying each step alone, loses only the deposed owner's (the last
    here: a lost step loses the steps queued behind it too)."""
    storage = await Storage.open(store.target, opened_ms=0)
    lost: list[object] = []
    storage.on_lost = lost.append
    try:
        await storage.persist([], [Fence("room:a", 3)])
        steps = [storage.persist([], [Fence(f"room:{key}", 3)]) for key in "bcd"]
        stale = storage.persist([], [Fence("room:a", 2)])
        outcomes = await asyncio.gather(*steps, stale, return_exceptions=True)
    finally:
        await storage.close()
    assert outcomes[:3] == [None] * 3
    assert isinstance(outcomes[3], WriteFailed) and "room:a" in str(outcomes[3])
    assert lost
    assert store.rows("SELECT key, token FROM fences ORDER BY key") == [
        ("room:a", 3), ("room:b", 3), ("room:c", 3), ("room:d", 3),
    ]  # fmt: skip


async def test_a_stale_fence_stores_none_of_its_steps_writes(store: StoreUnderTest) -> None:
    """A step's fence goes to the database with the step's writes (PostgreSQL holds them
    and sends them in one query, the fence checked there): a stale one leaves none of
    them stored, and the step before it, under a token still current, stays."""
    storage = await Storage.open(store.target, opened_ms=0)
    storage.on_lost = lambda events: None
    room = make_room(1)
    box = Mailbox.opening(room)
    try:
        await storage.create_player(StoredPlayer(ALICE.id, ALICE.name, False, False), "h1", 0)
        box.add(room.handle(ALICE, Ready(room_id=room.id), 0))
        place(room, box, ALICE, 100)
        await storage.persist(box.take_events(), [Fence(f"room:{room.id}", 5)])
        place(room, box, ALICE, 200)
        place(room, box, ALICE, 300)
        with pytest.raises(WriteFailed, match="newer owner"):
            await storage.persist(box.take_events(), [Fence(f"room:{room.id}", 4)])
    finally:
        await storage.close()
    assert store.rows("SELECT turn FROM placements") == [(1,)]
    assert store.rows("SELECT token FROM fences") == [(5,)]


async def test_text_bound_on_the_client_is_stored_as_it_was(store: StoreUnderTest) -> None:
    """What PostgreSQL's writer binds on the client (psycopg's quoting) comes back as it
    went in: quotes, backslashes, placeholders (positional and named, each engine's
    marks and the storage's own) and percent signs are only text."""
    storage = await Storage.open(store.target, opened_ms=0)
    tricky = "O'Brien \\' %s %% %(id)s :id {id} {{ ? ?? ');DROP TABLE players;-- ✓"
    try:
        await storage.create_player(StoredPlayer("p-quoted", tricky, True, False), "h-quoted", 0)
        found = await storage.find_player("p-quoted")
    finally:
        await storage.close()
    assert found is not None and found["name"] == tricky
    assert store.rows("SELECT count(*) FROM players") == [(1,)]
