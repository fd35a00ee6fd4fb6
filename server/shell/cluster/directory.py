"""The rooms every node can find: the public list and the invite codes, in Redis.

The owner of a room keeps its entry: a public room waiting or playing is in
the sorted set ``cs:listed`` (scored in the order rooms were first listed, the
score being the page cursor, so a cursor from one node pages on another) with
its summary and owner in the hash ``cs:listed:rooms``; a private room's invite
code is ``cs:invite:CODE``. An entry whose owner is gone is not shown (and is
removed) until a new owner lists the room again.

:class:`SharedRegistry` is the lobby's registry (server/registry.py) that also
notes which rooms opened, changed and closed, for the node to publish, and
which players took a seat in a room here (server/shell/cluster/hints.py).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

import redis.asyncio as aioredis

from protocol.fields import Visibility
from protocol.rooms import RoomSummary
from server.registry import RoomRegistry
from server.room import Phase, Room

LISTED = "cs:listed"
SUMMARIES = "cs:listed:rooms"
SEQ = "cs:listed:seq"


def invite_key(code: str) -> str:
    return f"cs:invite:{code}"


def listable(room: Room) -> bool:
    """As the lobby's own list: public, waiting or playing."""
    return room.settings.visibility == Visibility.PUBLIC and room.phase != Phase.FINISHED


class SharedRegistry(RoomRegistry):
    def __init__(self) -> None:
        super().__init__()
        self.opened: list[Room] = []
        self.closed: list[Room] = []
        self.touched: dict[str, Room] = {}  # public rooms reindexed since last taken
        self.seated: list[tuple[str, str]] = []  # (room id, player id): seats new here

    def add(self, room: Room) -> None:
        super().add(room)
        self.opened.append(room)

    def reindex(self, room: Room) -> None:
        super().reindex(room)
        if room.settings.visibility == Visibility.PUBLIC:
            self.touched[room.id] = room

    def joined(self, room: Room, player_ids: frozenset[str]) -> None:
        for pid in sorted(player_ids):
            if room.seat_of(pid) is not None:  # a spectator is not told where a room runs
                self.seated.append((room.id, pid))

    def forget(self, room: Room) -> None:
        super().forget(room)
        self.closed.append(room)
        self.touched.pop(room.id, None)


class Directory:
    def __init__(self, redis: aioredis.Redis, node: str) -> None:
        # redis-py's replies are typed as unions of bytes and str; ours are str (decoded).
        self.redis: Any = redis
        self.node = node
        self._published: dict[str, str] = {}  # room id -> the summary we last listed
        self._keys: dict[str, tuple[Any, ...]] = {}  # room id -> its summary's key, then
        self._ranked: set[str] = set()  # rooms whose place in cs:listed is written

    def changes(self, touched: Collection[Room]) -> tuple[dict[str, str], list[str]]:
        """What to list (room id -> entry) and unlist, of ``touched``, against what we listed."""
        upsert: dict[str, str] = {}
        remove: list[str] = []
        for room in touched:
            if listable(room):
                key = room.summary_key()
                if self._keys.get(room.id) == key:  # a placement: the summary is the same
                    continue
                self._keys[room.id] = key
                text = room.summary().model_dump_json()
                if self._published.get(room.id) != text:
                    self._published[room.id] = text
                    upsert[room.id] = json.dumps({"node": self.node, "room": text})
            elif self.unlist(room.id):
                remove.append(room.id)
        return upsert, remove

    def forget(self) -> None:
        """Nothing of ours is listed any more (Redis lost it): list everything again."""
        self._published.clear()
        self._keys.clear()
        self._ranked.clear()

    def unlist(self, room_id: str) -> bool:
        self._keys.pop(room_id, None)
        self._ranked.discard(room_id)
        return self._published.pop(room_id, None) is not None

    async def write(
        self, upsert: dict[str, str], remove: list[str], invites: dict[str, str | None]
    ) -> None:
        pipe = self.redis.pipeline(transaction=False)
        ranking = [room_id for room_id in upsert if room_id not in self._ranked]
        for room_id, entry in upsert.items():
            # Its first listing from here: a place in the list, unless it has one.
            if room_id in ranking and not await self.redis.zscore(LISTED, room_id):
                pipe.zadd(LISTED, {room_id: await self.redis.incr(SEQ)}, nx=True)
            pipe.hset(SUMMARIES, room_id, entry)
        for room_id in remove:
            pipe.zrem(LISTED, room_id)
            pipe.hdel(SUMMARIES, room_id)
        for code, target in invites.items():
            if target is None:
                pipe.delete(invite_key(code))
            else:
                pipe.set(invite_key(code), target)
        await pipe.execute()
        # Written: not looked up again (unless unlisted meanwhile).
        self._ranked.update(r for r in ranking if r in self._published)

    async def page(
        self, after: str | None, limit: int, alive: Collection[str]
    ) -> tuple[list[RoomSummary], str | None, int]:
        """A page of the public rooms of live nodes after cursor ``after``; ValueError:
        not a cursor."""
        low = "-inf" if after is None else f"({int(after)}"
        found = await self.redis.zrangebyscore(LISTED, low, "+inf", 0, limit + 1, withscores=True)
        ids = [room_id for room_id, _ in found[:limit]]
        entries = await self.redis.hmget(SUMMARIES, ids) if ids else []
        rooms: list[RoomSummary] = []
        stale: list[str] = []
        for room_id, entry in zip(ids, entries, strict=True):
            if entry is None:
                continue
            held = json.loads(entry)
            if held["node"] not in alive:
                stale.append(room_id)
                continue
            rooms.append(RoomSummary.model_validate_json(held["room"]))
        if stale:
            await self.redis.zrem(LISTED, *stale)
        more = len(found) > limit
        cursor = str(int(found[limit - 1][1])) if more and limit else None
        total = await self.redis.zcard(LISTED)
        return rooms, cursor, int(total)

    async def invite(self, code: str) -> str | None:
        room_id: str | None = await self.redis.get(invite_key(code))
        return room_id
