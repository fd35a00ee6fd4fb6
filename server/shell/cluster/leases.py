"""Who owns what: a lease per room (and the coordinator's), with a fencing token.

A lease is the Redis key ``cs:lease:KEY`` (KEY ``room:ID``, or ``coordinator``)
holding ``"NODE TOKEN"``, set only if absent (SET NX) with an expiry (PX), the
token from one counter (INCR ``cs:fence``), so every lease of a key has a larger
token than the one before. The owner renews all its leases at once (one script
over its set ``cs:owned:NODE``) well within the expiry; a node that stops
renewing (killed, paused, cut off) loses them when they expire, and another
node may take them. The token goes with every write the owner makes for the
key (server.storage.Fence), so a deposed owner that wakes up cannot write over
its successor: the store holds the newer token and refuses the older.

Each node also keeps ``cs:alive:NODE`` (a shorter expiry, renewed with the
leases) and is listed in ``cs:nodes``: the others see it gone when the key is.

Redis may lose everything (restarted without persistence, as docs/operations.md
runs it, or the cluster started again on a new one) while the database keeps
the tokens written under the old counter. So the counter belongs to an epoch,
the key ``cs:epoch``: no lease is granted while it is missing, and the node that
finds it missing first sets the counter past the newest token stored
(:data:`SEED_GAP` beyond it, for tokens granted but not yet written when Redis
lost them), then a new epoch. Every token of the new epoch is larger than any
of the old one, so the fences hold across the loss.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Awaitable, Callable, Collection
from typing import Any

import redis.asyncio as aioredis

LEASE_MS = 4_000  # a lease not renewed for this long is free
ALIVE_MS = 3_000  # a node not heard of for this long is gone
JOIN_MARGIN_S = 1.0  # past ALIVE_MS, how long a node waits for its id to be free
JOIN_POLL_S = 0.25
RENEW_S = 1.0  # how often the leases and the node's liveness are renewed
NODES = "cs:nodes"
VERSIONS = "cs:versions"  # node -> the version of the messages it sends the others
FENCE = "cs:fence"
EPOCH = "cs:epoch"
# A new epoch's counter starts this far past the newest token stored: more tokens
# than a cluster grants between two of its writes, by orders of magnitude.
SEED_GAP = 1_000_000_000

_ACQUIRE = """
if redis.call('EXISTS', KEYS[4]) == 0 then return -1 end
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local token = redis.call('INCR', KEYS[3])
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. token, 'PX', ARGV[2])
redis.call('SADD', KEYS[2], ARGV[3])
if ARGV[4] ~= '' then redis.call('SREM', ARGV[4], ARGV[3]) end
return token
"""

_RENEW = """
local held = {}
local mine = ARGV[1] .. ' '
for _, key in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local lease = 'cs:lease:' .. key
  local v = redis.call('GET', lease)
  if v and string.sub(v, 1, #mine) == mine then
    redis.call('PEXPIRE', lease, ARGV[2])
    table.insert(held, key)
  else
    redis.call('SREM', KEYS[1], key)
  end
end
redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
redis.call('SADD', KEYS[3], ARGV[1])
return held
"""

_SEED = """
if redis.call('EXISTS', KEYS[2]) == 1 then return redis.call('GET', KEYS[2]) end
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
redis.call('SET', KEYS[2], ARGV[2])
return ARGV[2]
"""

_RELEASE = """
local v = redis.call('GET', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[2])
if v and string.sub(v, 1, #ARGV[1] + 1) == ARGV[1] .. ' ' then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
"""


_HAND = """
if redis.call('EXISTS', KEYS[5]) == 0 then return 0 end
local v = redis.call('GET', KEYS[1])
if not v or string.sub(v, 1, #ARGV[1] + 1) ~= ARGV[1] .. ' ' then return 0 end
local token = redis.call('INCR', KEYS[4])
redis.call('SET', KEYS[1], ARGV[2] .. ' ' .. token, 'PX', ARGV[3])
redis.call('SREM', KEYS[2], ARGV[4])
redis.call('SADD', KEYS[3], ARGV[4])
return token
"""


COORDINATOR = "coordinator"  # the lease of the lobby-wide work: quick play, challenges,
# tournaments, the daily deal's desk; its holder runs them for every node


def room_key(room_id: str) -> str:
    return f"room:{room_id}"


def lease_key(key: str) -> str:
    return f"cs:lease:{key}"


class JoinRefused(Exception):
    """This node may not join the cluster: the reason, in one line."""


class NodeIdInUse(JoinRefused):
    """Another live node of the cluster has this node's id."""


class MixedVersions(JoinRefused):
    """A live node of the cluster speaks another version of the messages between nodes."""


def owned_key(node: str) -> str:
    return f"cs:owned:{node}"


def alive_key(node: str) -> str:
    return f"cs:alive:{node}"


class Leases:
    def __init__(
        self, redis: aioredis.Redis, node: str, newest_stored: Callable[[], Awaitable[int]]
    ) -> None:
        # redis-py's replies are typed as unions of bytes and str; ours are str (decoded).
        self.redis: Any = redis
        self.node = node
        self.tokens: dict[str, int] = {}  # key -> the token of our lease on it
        self.epoch: str | None = None  # the counter's epoch, as last seen
        self.reset = False  # the epoch changed since we last looked: Redis lost its data
        self._newest_stored = newest_stored  # the newest token in the database
        self._taken_at: dict[str, int] = {}  # key -> the renewal round it was taken in
        self._round = 0
        self._acquire: Any = redis.register_script(_ACQUIRE)
        self._renew: Any = redis.register_script(_RENEW)
        self._release: Any = redis.register_script(_RELEASE)
        self._seed: Any = redis.register_script(_SEED)
        self._hand: Any = redis.register_script(_HAND)

    async def join(self, version: int, others: Collection[str]) -> None:
        """Be seen alive as this node, which speaks ``version`` to the others.

        Refused (:class:`MixedVersions`) if one of the live ``others`` speaks another
        version (a node that never said counts as version 1, the first), and
        (:class:`NodeIdInUse`) while another node of the same id is alive, which would
        renew and release our leases as its own. A node of this id killed a moment ago
        is waited out (its key expires within :data:`ALIVE_MS`); one that goes on
        renewing its key is not."""
        listed = sorted(others)
        said = await self.redis.hmget(VERSIONS, listed) if listed else []
        versions = {n: int(v or 1) for n, v in zip(listed, said, strict=True)}
        odd = {n: v for n, v in versions.items() if v != version}
        if odd:
            theirs = ", ".join(f"{n!r} version {v}" for n, v in odd.items())
            raise MixedVersions(
                f"this node speaks version {version} of the messages between nodes and"
                f" {theirs}: nodes of two versions cannot share a cluster; stop every node,"
                " then start them all on the new version (docs/operations.md)"
            )
        await self.check_epoch()
        deadline = time.monotonic() + ALIVE_MS / 1000 + JOIN_MARGIN_S
        while not await self.redis.set(alive_key(self.node), "1", px=ALIVE_MS, nx=True):
            if time.monotonic() >= deadline:
                raise NodeIdInUse(
                    f"another node of this cluster is running as {self.node!r}"
                    " (it renews its liveness in Redis): give each node its own --node-id"
                )
            await asyncio.sleep(JOIN_POLL_S)
        await self.redis.hset(VERSIONS, self.node, version)
        await self.redis.sadd(NODES, self.node)

    async def check_epoch(self) -> None:
        """Start a new epoch if Redis has none (seeding its counter past the newest
        token stored); if the epoch is not the one we last saw, Redis lost everything
        since (our leases, the lists, who is connected where): :attr:`reset`."""
        epoch = await self.redis.get(EPOCH)
        if epoch is None:
            floor = await self._newest_stored()
            start = floor + SEED_GAP if floor else 0
            epoch = await self._seed(keys=[FENCE, EPOCH], args=[start, secrets.token_hex(8)])
        if self.epoch is not None and epoch != self.epoch:
            self.reset = True
        self.epoch = epoch

    async def acquire(self, key: str, *, from_node: str | None = None) -> int | None:
        """Our lease on ``key`` and its token, or None if another node holds it.
        ``from_node``: a node gone whose set of leases ``key`` leaves."""
        for _ in range(2):
            token = int(
                await self._acquire(
                    keys=[lease_key(key), owned_key(self.node), FENCE, EPOCH],
                    args=[self.node, LEASE_MS, key, owned_key(from_node) if from_node else ""],
                )
            )
            if token != -1:
                break
            await self.check_epoch()  # Redis lost its data: a new epoch first
        if token <= 0:
            return None
        self.tokens[key] = token
        self._taken_at[key] = self._round
        return token

    async def renew(self) -> list[str]:
        """Renew every lease we hold and our liveness; the keys we had lost (expired
        while we were cut off or paused, perhaps taken by another node since)."""
        self._round += 1
        started = self._round
        held = set(
            await self._renew(
                keys=[owned_key(self.node), alive_key(self.node), NODES],
                args=[self.node, LEASE_MS, ALIVE_MS],
            )
        )
        # A lease taken while the script ran may not be in ``held`` yet: not lost.
        lost = [k for k, at in self._taken_at.items() if at < started and k not in held]
        for key in lost:
            self.tokens.pop(key, None)
            self._taken_at.pop(key, None)
        return lost

    async def holds(self, key: str) -> bool:
        """Is our lease on ``key`` still the one in Redis? (If not, we lost it.)"""
        token = self.tokens.get(key)
        current = await self.redis.get(lease_key(key))
        if token is not None and current == f"{self.node} {token}":
            return True
        self.tokens.pop(key, None)
        self._taken_at.pop(key, None)
        return False

    async def release(self, key: str) -> None:
        self.tokens.pop(key, None)
        self._taken_at.pop(key, None)
        await self._release(keys=[lease_key(key), owned_key(self.node)], args=[self.node, key])

    async def hand_over(self, key: str, node: str) -> int | None:
        """Our lease on ``key`` becomes ``node``'s, with a new token, in one step (it is
        never free meanwhile, so a command for it always finds an owner); None if we
        no longer held it (or Redis lost its data: no epoch). Until ``node`` adopts it,
        its renewals keep it; if ``node`` is gone, it expires and is taken as any of a
        gone node's leases."""
        self.tokens.pop(key, None)
        self._taken_at.pop(key, None)
        token = int(
            await self._hand(
                keys=[lease_key(key), owned_key(self.node), owned_key(node), FENCE, EPOCH],
                args=[self.node, node, LEASE_MS, key],
            )
        )
        return token or None

    async def adopt(self, key: str) -> int | None:
        """A lease handed to us (:meth:`hand_over`): ours from now on, and its token;
        None if it is not ours (it expired, another node has it)."""
        value = await self.redis.get(lease_key(key))
        node, _, token = (value or "").partition(" ")
        if node != self.node or not token.isdigit():
            return None
        self.tokens[key] = int(token)
        self._taken_at[key] = self._round
        return int(token)

    async def owner(self, key: str) -> str | None:
        value = await self.redis.get(lease_key(key))
        return value.split(" ")[0] if value else None

    async def nodes(self) -> dict[str, bool]:
        """Every node listed, and whether it is alive."""
        listed = sorted(await self.redis.smembers(NODES))
        if not listed:
            return {}
        alive = await self.redis.mget([alive_key(n) for n in listed])
        return {n: a is not None for n, a in zip(listed, alive, strict=True)}

    async def loads(self, nodes: Collection[str]) -> dict[str, int]:
        """How many leases each of ``nodes`` holds (its rooms, and the coordinator's
        work where it runs), in one round trip."""
        listed = list(nodes)
        pipe = self.redis.pipeline(transaction=False)
        for node in listed:
            pipe.scard(owned_key(node))
        counts = await pipe.execute()
        return {node: int(n) for node, n in zip(listed, counts, strict=True)}

    async def orphans(self, node: str) -> list[str]:
        """The keys a gone node held."""
        return sorted(await self.redis.smembers(owned_key(node)))

    async def disown(self, node: str, key: str) -> None:
        """``key`` is no longer ``node``'s (a gone node, another holds it now)."""
        await self.redis.srem(owned_key(node), key)

    async def forget_node(self, node: str) -> None:
        await self.redis.srem(NODES, node)
        await self.redis.hdel(VERSIONS, node)

    async def leave(self) -> None:
        await self.redis.delete(alive_key(self.node))
        await self.redis.srem(NODES, self.node)
