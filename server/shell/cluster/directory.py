"""The rooms every node can find: the public list and the invite codes, in Redis.

The owner of a room keeps its entry: a public room waiting or playing is in
the sorted set ``cs:listed`` (scored in the order rooms were first listed, the
score being the page cursor, so a cursor from one node pages on another) with
its summary and owner in the hash ``cs:listed:rooms``; a private room's invite
code is ``cs:invite:CODE``. Cursors are marked (server.cursors) under the key
``cs:listed:key``, drawn by the first node that needs it, so a cursor no node
gave is refused by every node. An entry whose owner is gone is not shown (and is
removed) until a new owner lists the room again. A node writes its changes in
one pipeline a round trip, those made meanwhile in the next.

Which rooms opened, changed and closed in a step, and which players took a
seat in a room here (server/shell/cluster/hints.py), the lobby notes and the
step's output carries (server/step.py).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Collection
from typing import Any

import redis.asyncio as aioredis

from protocol.fields import Visibility
from protocol.rooms import RoomSummary
from server.cursors import BadCursor, Seal
from server.room import Phase, Room

LISTED = "cs:listed"
SUMMARIES = "cs:listed:rooms"
SEQ = "cs:listed:seq"
SEAL_KEY = "cs:listed:key"  # the key of the cursors' marks, shared by every node
# A room's place in cs:listed, the next of cs:listed:seq, unless it has one.
RANK = """
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  redis.call('ZADD', KEYS[1], 'NX', redis.call('INCR', KEYS[2]), ARGV[1])
end
"""


def invite_key(code: str) -> str:
    return f"cs:invite:{code}"


def listable(room: Room) -> bool:
    """As the lobby's own list: public, waiting or playing."""
    return room.settings.visibility == Visibility.PUBLIC and room.phase != Phase.FINISHED


class Directory:
    def __init__(self, redis: aioredis.Redis, node: str) -> None:
        # redis-py's replies are typed as unions of bytes and str; ours are str (decoded).
        self.redis: Any = redis
        self.node = node
        self._published: dict[str, str] = {}  # room id -> the summary we last listed
        self._keys: dict[str, tuple[Any, ...]] = {}  # room id -> its summary's key, then
        self._ranked: set[str] = set()  # rooms whose place in cs:listed is written
        # What waits for the write under way: room id -> entry (None: unlist), and
        # invite code -> room id (None: gone).
        self._entries: dict[str, str | None] = {}
        self._invites: dict[str, str | None] = {}
        self._writing = False
        self._seal: Seal | None = None

    async def seal(self, again: bool = False) -> Seal:
        """The cursors' seal, its key read from Redis (drawn there by the first node to
        ask); ``again``: read it anew (Redis lost it, or another node drew it since)."""
        if self._seal is None or again:
            await self.redis.set(SEAL_KEY, secrets.token_hex(16), nx=True)
            key = await self.redis.get(SEAL_KEY)
            self._seal = Seal(bytes.fromhex(key))
        return self._seal

    async def position(self, after: str) -> int:
        """The position of the cursor ``after``; BadCursor if no node gave it."""
        try:
            return (await self.seal()).read(after)
        except BadCursor:
            return (await self.seal(again=True)).read(after)

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
        """Write these changes, with whatever else is waiting, in one pipeline: one
        round trip. While a write is under way, changes wait for its next round (so
        an entry's changes are written in order, the latest last, and a room that
        changed several times meanwhile is written once). Raises the first failure
        of its rounds (what that round carried is lost, as a failed command is)."""
        for room_id, entry in upsert.items():
            self._entries[room_id] = entry
        for room_id in remove:
            self._entries[room_id] = None
        self._invites.update(invites)
        if self._writing:
            return
        self._writing = True
        failure: Exception | None = None
        try:
            while self._entries or self._invites:
                entries, self._entries = self._entries, {}
                codes, self._invites = self._invites, {}
                try:
                    await self._write(entries, codes)
                except Exception as exc:
                    failure = failure or exc
        finally:
            self._writing = False
        if failure is not None:
            raise failure

    async def _write(self, entries: dict[str, str | None], invites: dict[str, str | None]) -> None:
        pipe = self.redis.pipeline(transaction=False)
        ranking: list[str] = []
        for room_id, entry in entries.items():
            if entry is None:
                pipe.zrem(LISTED, room_id)
                pipe.hdel(SUMMARIES, room_id)
                continue
            if room_id not in self._ranked:  # its first listing from here
                ranking.append(room_id)
                pipe.eval(RANK, 2, LISTED, SEQ, room_id)
            pipe.hset(SUMMARIES, room_id, entry)
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
        """A page of the public rooms of live nodes after cursor ``after``; BadCursor
        (a ValueError): not a cursor a node gave."""
        low = "-inf" if after is None else f"({await self.position(after)}"
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
        seal = await self.seal()
        cursor = seal.give(int(found[limit - 1][1])) if more and limit else None
        total = await self.redis.zcard(LISTED)
        return rooms, cursor, int(total)

    async def invite(self, code: str) -> str | None:
        room_id: str | None = await self.redis.get(invite_key(code))
        return room_id
