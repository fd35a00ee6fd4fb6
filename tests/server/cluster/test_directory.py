"""The node's entries in the shared list of rooms: made again only when a room's summary
can have changed, and all of them again once Redis lost them."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import redis.asyncio as aioredis

from protocol.rooms import JoinRoom
from server.cursors import BadCursor
from server.room import Room
from server.shell.cluster.directory import LISTED, SUMMARIES, Directory, invite_key
from tests.server.roomkit import BOB, make_room


def test_an_entry_is_made_again_only_when_the_summary_can_have_changed() -> None:
    directory = Directory(None, "n1")  # type: ignore[arg-type]  # no Redis: nothing written
    room = make_room(2)
    upsert, remove = directory.changes([room])
    assert list(upsert) == [room.id] and remove == []
    assert directory.changes([room]) == ({}, [])  # nothing changed: nothing to write
    room.handle(BOB, JoinRoom(room_id=room.id), 0)
    upsert, _ = directory.changes([room])  # a seat taken: the summary says so
    assert '\\"taken\\":2' in upsert[room.id]
    assert directory.changes([room]) == ({}, [])
    directory.forget()  # Redis lost the list: every room is listed again
    assert list(directory.changes([room])[0]) == [room.id]


def _room(n: int) -> Room:
    room = make_room(2)
    room.id = f"room{n}"
    return room


async def test_writes_under_way_are_taken_in_order_and_a_listed_room_keeps_its_place(
    redis_url: str,
) -> None:
    # redis-py's replies are typed as unions of bytes and str; these are str (decoded).
    client: Any = aioredis.Redis.from_url(redis_url, decode_responses=True)
    try:
        other = Directory(client, "n2")
        first, second, third = _room(1), _room(2), _room(3)
        await other.write(*other.changes([second]), {})  # listed by another node first
        directory = Directory(client, "n1")
        writes = [directory.write(*directory.changes([first, second]), {"CODE1": first.id})]
        first.handle(BOB, JoinRoom(room_id=first.id), 0)  # changed while that is written
        writes.append(directory.write(*directory.changes([first]), {}))
        writes.append(directory.write(*directory.changes([third]), {"CODE1": None}))
        await asyncio.gather(*writes)
        ranks = dict(await client.zrange(LISTED, 0, -1, withscores=True))
        assert ranks == {second.id: 1.0, first.id: 2.0, third.id: 3.0}
        entry = json.loads(await client.hget(SUMMARIES, first.id))
        assert entry["node"] == "n1" and '"taken":2' in entry["room"]
        assert json.loads(await client.hget(SUMMARIES, second.id))["node"] == "n1"
        assert await client.get(invite_key("CODE1")) is None
        # Unlisted, then listed again: a new place, at the end.
        directory.unlist(first.id)
        await directory.write({}, [first.id], {"CODE2": second.id})
        assert not await client.hexists(SUMMARIES, first.id)
        await directory.write(*directory.changes([first]), {})
        ranks = dict(await client.zrange(LISTED, 0, -1, withscores=True))
        assert ranks == {second.id: 1.0, third.id: 3.0, first.id: 4.0}
        assert await client.get(invite_key("CODE2")) == second.id
    finally:
        await client.aclose()


async def test_a_cursor_one_node_gave_pages_on_another_and_no_other_text_does(
    redis_url: str,
) -> None:
    client: Any = aioredis.Redis.from_url(redis_url, decode_responses=True)
    try:
        one, two = Directory(client, "n1"), Directory(client, "n2")
        rooms = [_room(n) for n in range(3)]
        await one.write(*one.changes(rooms), {})
        page, cursor, total = await one.page(None, 1, {"n1"})
        assert [r.id for r in page] == ["room0"] and total == 3 and cursor is not None
        page, _, _ = await two.page(cursor, 1, {"n1"})  # the key is shared in Redis
        assert [r.id for r in page] == ["room1"]
        position, mark = cursor.split(".")
        for forged in ("99999999999999999999999999", "-1", position, f"{int(position) + 1}.{mark}",
                       f"{position}.{'0' * len(mark)}"):  # fmt: skip
            for node in (one, two):
                with pytest.raises(BadCursor):
                    await node.page(forged, 1, {"n1"})
    finally:
        await client.aclose()
