"""Storage persists what rooms decided: batched commits, unique names, abandoned matches.

Each test that takes ``store`` runs on SQLite and on PostgreSQL (tests/server/conftest.py).
"""

from __future__ import annotations

import asyncio
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from protocol.rooms import AddBot, Ready
from server.bots import bot_factory
from server.events import CardPlaced
from server.room import BotFactory
from server.room.restore import restore as restore_room
from server.storage import NameInUse, Storage, StoredPlayer, WriteFailed
from server.storage.backends import backend_for
from server.storage.postgres import INSERT_ROWS
from tests.server.roomkit import ALICE, SECRET, Mailbox, bots, make_room, place
from tests.server.stores import StoreUnderTest
from tests.services import postgres


async def test_a_match_is_stored_and_read_back(store: StoreUnderTest) -> None:
    storage = await Storage.open(store.target, opened_ms=0)
    await storage.create_player(StoredPlayer(ALICE.id, ALICE.name, False, False), "h1", 0)
    assert await storage.player_by_token_hash("h1") == StoredPlayer(ALICE.id, "alice", False, False)
    room = make_room(1)
    box = Mailbox.opening(room)
    box.add(room.handle(ALICE, Ready(room_id=room.id), 0))
    # Half the match: stored, but nothing hidden is readable.
    for i in range(8):
        place(room, box, ALICE, 100 * (i + 1))
    futures = [storage.persist([event]) for event in box.take_events()]
    await asyncio.gather(*futures)
    playing = await storage.match("match1")
    assert playing is not None and playing["status"] == "playing" and playing["seed"] is None
    assert "placements" not in playing["boards"][0]
    for i in range(8, 16):
        place(room, box, ALICE, 100 * (i + 1))
    await storage.persist(box.take_events())
    done = await storage.match("match1")
    assert done is not None and done["status"] == "finished"
    assert done["seed"] == box.result(ALICE).seed
    assert len(done["boards"][0]["placements"]) == 16
    mine = await storage.player_matches("ALICE")
    assert mine is not None and mine["matches"][0]["rank"] == 1
    await storage.close()


async def test_names_hold_one_key_and_guests_share_only_among_themselves(
    store: StoreUnderTest,
) -> None:
    storage = await Storage.open(store.target, opened_ms=0)
    await storage.create_player(StoredPlayer("p1", "Alice", False, False), "h1", 0)
    # A person, a bot program and a guest alike: no name that reads as Alice's.
    for pid, name, guest, bot in (
        ("p2", "alice", False, False),
        ("p3", "ALICE", False, True),
        ("p4", "Аlice", False, False),  # a Cyrillic А
        ("p5", "alice", True, False),
    ):
        with pytest.raises(NameInUse):
            await storage.create_player(StoredPlayer(pid, name, guest, bot), "h" + pid, 0)
    await storage.create_player(StoredPlayer("p6", "bob", True, False), "h6", 0)
    await storage.create_player(StoredPlayer("p7", "Bob", True, False), "h7", 0)
    await storage.create_player(
        StoredPlayer("p8", "BOB", False, False), "h8", 0
    )  # guests hold none
    assert (await storage.find_player("ALICE")) == {
        "id": "p1", "name": "Alice", "guest": 0, "bot": 0,
    }  # fmt: skip
    assert (await storage.find_player("bob"))["id"] == "p8"  # type: ignore[index]
    assert (await storage.find_player("p6"))["guest"]  # type: ignore[index]
    await storage.close()


async def test_unfinished_series_are_read_back_at_restart_to_be_resumed(
    store: StoreUnderTest,
) -> None:
    storage = await Storage.open(store.target, opened_ms=0)
    await storage.create_player(StoredPlayer(ALICE.id, ALICE.name, False, False), "h1", 0)
    room = make_room(1)
    box = Mailbox.opening(room)
    box.add(room.handle(ALICE, Ready(room_id=room.id), 0))
    place(room, box, ALICE, 5)
    await storage.persist(box.take_events())
    await storage.close()
    storage = await Storage.open(store.target, opened_ms=0)
    (saved,) = await storage.unfinished()
    assert saved.series_id == "match1" and saved.root_secret == SECRET
    assert [p.id for p in saved.players] == [ALICE.id]
    (only,) = saved.deals
    assert not only.finished and [p.turn for p in only.placements] == [1]
    match = await storage.match("match1")
    assert match is not None and match["status"] == "playing"
    await storage.abandon("match1")  # as for a series that could not be resumed
    match = await storage.match("match1")
    assert match is not None and match["status"] == "abandoned"
    assert await storage.unfinished() == []
    await storage.close()


async def test_a_write_that_cannot_commit_fails_with_the_writes_waiting_behind_it(
    store: StoreUnderTest,
) -> None:
    """Never a success for what is not stored: the lost write and those queued behind
    it fail, the owner hears of their events first; writes before it still commit."""
    storage = await Storage.open(store.target, batch_wait_s=0.05, opened_ms=0)
    heard: list[list[object]] = []
    storage.on_lost = lambda events: heard.append(list(events))
    await storage.create_player(StoredPlayer(ALICE.id, ALICE.name, False, False), "h0", 0)
    room = make_room(1)
    box = Mailbox.opening(room)
    box.add(room.handle(ALICE, Ready(room_id=room.id), 0))
    await storage.persist(box.take_events())
    store.refuse("refuse", "placements", "NEW.turn = 2", "refused")
    writes = []
    for i in range(3):  # turns 1, 2, 3: one batch (the writer gathers for 50 ms)
        place(room, box, ALICE, 100 * (i + 1))
        writes.append(storage.persist(box.take_events()))
    outcomes = await asyncio.gather(*writes, return_exceptions=True)
    assert outcomes[0] is None
    assert isinstance(outcomes[1], WriteFailed) and "refused" in outcomes[1].reason
    assert isinstance(outcomes[2], WriteFailed) and "a write before it" in outcomes[2].reason
    (lost,) = heard
    assert [e.turn for e in lost if isinstance(e, CardPlaced)] == [2, 3]
    turns = [t for (t,) in store.rows("SELECT turn FROM placements ORDER BY turn")]
    assert turns == [1]
    # A registration that fails is lost alone: nothing queued behind it builds on it.
    store.allow("refuse", "placements")
    store.refuse("refuse_players", "players", "NEW.name = 'mallory'", "refused")
    first = storage.create_player(StoredPlayer("p1", "mallory", False, False), "h1", 0)
    second = storage.create_player(StoredPlayer("p2", "trent", False, False), "h2", 0)
    failed, fine = await asyncio.gather(first, second, return_exceptions=True)
    assert isinstance(failed, WriteFailed) and fine is None and len(heard) == 1
    assert await storage.player_by_token_hash("h2") is not None
    await storage.close()


async def _series_with_a_bot_seat(
    path: Path | str, strategy: str = "fallback", factory: BotFactory = bots
) -> None:
    storage = await Storage.open(path, opened_ms=0)
    await storage.create_player(StoredPlayer(ALICE.id, ALICE.name, False, False), "h1", 0)
    room = make_room(2, strategies=factory)
    box = Mailbox.opening(room)
    box.add(room.handle(ALICE, AddBot(room_id=room.id, strategy=strategy), 0))
    box.add(room.handle(ALICE, Ready(room_id=room.id), 0))
    place(room, box, ALICE, 5)
    await storage.persist(box.take_events())
    await storage.close()


async def test_a_bot_seat_is_stored_as_its_strategy_and_seed_and_rebuilt_from_them(
    store: StoreUnderTest,
) -> None:
    await _series_with_a_bot_seat(store.target)
    storage = await Storage.open(store.target, opened_ms=0)
    (saved,) = await storage.unfinished()
    await storage.close()
    assert saved.seat_bots == (("", ""), ("fallback", f"{saved.room_id}/bot-fallback-1"))
    # The id is only a name: the stored strategy is what the seat plays.
    renamed = replace(
        saved,
        players=(saved.players[0], replace(saved.players[1], id="someone")),
        deals=tuple(
            replace(d, placements=tuple(p for p in d.placements if p.player_id == ALICE.id))
            for d in saved.deals
        ),
    )
    room = restore_room(renamed, 10, bots=bots)
    assert room.seats[1].strategy == "fallback" and room.seats[1].bot is not None


@pytest.mark.parametrize(
    ("strategy", "factory"),
    [("fallback", bots), ("greedy", bot_factory)],
    ids=["fallback", "greedy"],
)
async def test_bot_seats_stored_before_their_strategy_was_are_migrated(
    tmp_path: Path, strategy: str, factory: BotFactory
) -> None:
    """An older server stored no level per seat: the bot's id names it (bot-greedy-1),
    written down once when the database is opened, and the restart rebuilds that bot."""
    path = tmp_path / "db"
    await _series_with_a_bot_seat(path, strategy, factory)
    db = sqlite3.connect(path)  # the table as an earlier version made it (SQLite only)
    db.execute("ALTER TABLE series_players DROP COLUMN strategy")
    db.execute("ALTER TABLE series_players DROP COLUMN bot_seed")
    db.execute("DROP TABLE schema_migrations")  # versions came later
    db.commit()
    db.close()
    storage = await Storage.open(path, opened_ms=0)
    (saved,) = await storage.unfinished()
    await storage.close()
    assert saved.seat_bots == (("", ""), (strategy, f"{saved.room_id}/bot-{strategy}-1"))
    room = restore_room(saved, 10, bots=factory)
    bot = room.seats[1]
    assert (bot.strategy, bot.bot_seed) == saved.seat_bots[1] and bot.bot is not None


@pytest.mark.slow
async def test_a_postgresql_restart_holds_writes_until_it_is_back_and_loses_none() -> None:
    """The PostgreSQL server stops (as an operator's restart) while a match is played:
    the write waits, retried, ``failing`` says why; PostgreSQL back, it commits on a
    new connection, and the reads go on."""
    reason = postgres.unavailable()
    if reason is not None:
        pytest.skip(reason)
    with postgres.cluster(fsync=False) as cluster:
        url = cluster.url(cluster.create_database())
        storage = await Storage.open(url, opened_ms=0)
        await storage.create_player(StoredPlayer(ALICE.id, ALICE.name, False, False), "h1", 0)
        room = make_room(1)
        box = Mailbox.opening(room)
        box.add(room.handle(ALICE, Ready(room_id=room.id), 0))
        place(room, box, ALICE, 100)
        await storage.persist(box.take_events())
        cluster.stop("fast")
        place(room, box, ALICE, 200)
        held = storage.persist(box.take_events())
        for _ in range(100):
            if storage.failing is not None:
                break
            await asyncio.sleep(0.05)
        assert storage.failing is not None and not held.done()
        await asyncio.to_thread(cluster.start)
        await asyncio.wait_for(held, 30)
        assert storage.failing is None
        (saved,) = await storage.unfinished()
        assert [p.turn for p in saved.deals[0].placements] == [1, 2]
        await storage.close()


@pytest.mark.slow
async def test_postgresql_reads_share_a_pool_and_ride_out_a_restart() -> None:
    """Reads at once go to several connections (up to READERS), not one after another
    on one; after a restart of PostgreSQL, every pooled connection being dead, the
    next read gets a new one."""
    reason = postgres.unavailable()
    if reason is not None:
        pytest.skip(reason)
    from server.storage.backends import open_reader
    from server.storage.postgres import READERS

    with postgres.cluster(fsync=False) as cluster:
        reader = await open_reader(cluster.url(cluster.create_database()))
        try:
            slow = "SELECT pg_backend_pid() AS pid, pg_sleep(0.3) AS slept"
            rows = await asyncio.gather(*(reader.fetch(slow) for _ in range(READERS * 2)))
            pids = {r[0]["pid"] for r in rows}
            assert 2 <= len(pids) <= READERS, pids
            await asyncio.to_thread(cluster.stop, "fast")
            await asyncio.to_thread(cluster.start)
            again = await reader.fetch("SELECT pg_backend_pid() AS pid")
            assert again[0]["pid"] not in pids
        finally:
            await reader.close()


async def test_many_rows_of_one_insert_are_all_written_and_a_conflict_skips_only_its_row(
    store: StoreUnderTest,
) -> None:
    # PostgreSQL writes them as multi-row INSERTs of at most INSERT_ROWS rows each.
    await (await Storage.open(store.target, opened_ms=0)).close()
    store.execute(
        "INSERT INTO players (id, name, guest, bot, created_ms) VALUES ('p7', 'kept', 0, 0, 1)"
    )
    writer = backend_for(store.target).open_writer()
    rows = [(f"p{i}", f"n{i}", i % 2 == 0, False, 2) for i in range(2 * INSERT_ROWS + 3)]
    try:
        with writer.transaction() as tx:
            tx.insert(
                "players", ("id", "name", "guest", "bot", "created_ms"),
                [*rows, rows[3]],  # a row twice in one statement: skipped like any other
                skip_existing=True,
            )  # fmt: skip
    finally:
        writer.close()
    stored = store.rows("SELECT id, name, guest, created_ms FROM players ORDER BY id")
    assert len(stored) == len(rows)
    assert ("p7", "kept", 0, 1) in stored and ("p8", "n8", 1, 2) in stored
    assert ("p9", "n9", 0, 2) in stored and ("p402", "n402", 1, 2) in stored
