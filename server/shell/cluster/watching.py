"""The watch over the cluster: nodes gone, leases lost, Redis emptied, and what
this node takes over then.

Every :data:`WATCH_S` the node renews its leases (:meth:`Watching.watch`, a
loop that waits on nothing else) and, in a loop of its own, looks at the others
(:meth:`Watching.look`). A node gone (its liveness key expired): its
players count as disconnected (their seats' grace period starts), and the
others race for its rooms' leases as they expire; the winner of each rebuilds
the room from the store as a restart does (server/room/restore.py) and sends a
snapshot to its players connected anywhere (:meth:`Watching.take`). A
lease of ours that expired (we were cut off or paused): the room leaves this
lobby. Redis restarted empty: every room we hold is leased again under the new
epoch, and what we had published is published again.

The coordinator's lease is taken when it is free: with it the daily desk as
the previous coordinator left it in the store, the quick-play queue and the
open challenges it copied to Redis (:mod:`.waiting`), and the tournaments it
ran, claimed series by series, their tables played on wherever they are.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import random
from typing import Any

from redis.exceptions import RedisError

from protocol.rooms import RoomOrigin
from server import errors
from server.records import Fence
from server.recovery import Resumable
from server.shell import clock, daily_keeper
from server.shell.cluster import waiting
from server.shell.cluster.base import NodeBase
from server.shell.cluster.forwarding import FORWARD_RETRY_S
from server.shell.cluster.leases import COORDINATOR, LEASE_MS, RENEW_S, room_key
from server.shell.cluster.presence import presence_key

log = logging.getLogger(__name__)

WATCH_S = 0.5  # how often the node looks for nodes gone and leases lost
# A daily attempt's lease held elsewhere (a node that looked at the room and lets it go,
# or one that died holding it, whose lease expires): waited for this long at most.
CLAIM_WAIT_S = 3 * LEASE_MS / 1000

# Rooms that go with the coordinator's work: the daily deal's attempts with the desk
# that counts them and ends their day. (A tournament's tables play on any node; their
# results reach the director through the store: server/shell/cluster/tables.py.)
COORDINATED = (RoomOrigin.DAILY,)


class Watching:
    """A node's watch over the others, and what it takes over of what they leave: a
    part of its :class:`~.node.ClusterNode`, acting on the node's state (``node``)."""

    def __init__(self, node: NodeBase) -> None:
        self.node = node
        self._taking: set[str] = set()  # rooms being taken over or claimed

    async def watch(self) -> None:
        """Every :data:`WATCH_S`, until cancelled: Redis emptied? leases renewed (and
        those lost let go), what the others missed sent again.

        Nothing here waits on the store (but leasing our rooms again after Redis lost
        its data, which must come before any renewal): the cluster is looked at in a
        loop of its own (:meth:`looking`), whose takeovers read and write the store.
        When both were one loop, a database slowed by load held the renewals back past
        the leases' expiry, and a busy node lost its rooms to the others."""
        node = self.node
        renewed = 0.0
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(WATCH_S)
            try:
                await node.leases.check_epoch()
                if node.leases.reset:
                    await self._recover()
                if loop.time() - renewed >= RENEW_S:
                    renewed = loop.time()
                    for key in await node.leases.renew():
                        await self._lost(key)
                    if node.missed or node.bus.missed:  # Redis answers again
                        node.missed = node.bus.missed = False
                        node.later(self._resync())
            except Exception as exc:
                log.warning("cluster: renewing the leases failed (%s)", exc)

    async def looking(self) -> None:
        """Every :data:`WATCH_S`, until cancelled: the cluster looked at (:meth:`look`)."""
        while True:
            await asyncio.sleep(WATCH_S)
            try:
                await self.look()
            except Exception as exc:
                log.warning("cluster: watching the cluster failed (%s)", exc)

    async def _recover(self) -> None:
        """Redis lost everything (restarted empty): our leases, our entries in the
        shared lists, who is connected here. We still hold our rooms in memory, and no
        other node knew to take them (the lists of what each node owns went too), so
        each is leased again, under a token of the new epoch written at once as its
        fence; the coordinator first, by the node that had it. What we had published
        is published again."""
        node = self.node
        node.leases.reset = False
        node.reset_at = asyncio.get_running_loop().time()
        log.warning("cluster: Redis lost its data; node %s leases its rooms again", node.id)
        if COORDINATOR in node.leases.tokens:
            node.leases.tokens.pop(COORDINATOR, None)
            await self._coordinate(again=True)
        fences: list[Fence] = []
        for room_id in list(node.lobby.rooms):
            key = room_key(room_id)
            node.leases.tokens.pop(key, None)
            token = await node.leases.acquire(key)
            if token is None:  # another node leased it first: the store has its version
                await self._lost(key)
                continue
            fences.append(Fence(key, token))
            node.owners[key] = node.id
            node.bus.publish_later(None, {"k": "owner", "key": key})
        await node.storage.persist([], fences)
        node.missed = True  # who is connected here, and what the others may have missed
        node.directory.forget()
        invites: dict[str, str | None] = {
            room.invite_code: room.id
            for room in node.lobby.rooms.values()
            if room.invite_code is not None
        }
        upsert, remove = node.directory.changes(list(node.lobby.rooms.values()))
        node.later(node.directory.write(upsert, remove, invites))

    async def _resync(self) -> None:
        """After publications failed (Redis was down or lost its data): once every
        node listens again, announce who is connected here again, and send the
        players of our rooms connected elsewhere each room's snapshot, in place of
        whatever of its messages they missed (as after a takeover)."""
        node = self.node
        await asyncio.sleep(RENEW_S)
        for player_id, sessions in list(node.delivery.by_player.items()):
            session = next((s for s in sessions if s.player is not None), None)
            if session is not None:
                node.signed_in(player_id, session)
        remote = list(node.presence.nodes_of)
        with contextlib.suppress(errors.StorageFailed):
            await node.hub.apply(lambda: node.lobby.snapshots(remote, clock.now_ms()))

    async def _lost(self, key: str) -> None:
        """Our lease on ``key`` expired (we were cut off or paused, or Redis lost it):
        another node may hold it, and the store refuses our writes for it. The room
        leaves this lobby; if its lease is free it comes back from the store (what is
        in memory may be older than what another owner stored meanwhile)."""
        node = self.node
        if key == COORDINATOR:
            log.warning("cluster: the coordinator's lease lost; its daily desk stands by")
            node.lobby.daily.standby()
            node.lobby.head_to_head.clear()  # the next coordinator takes them back
            node.owners.pop(key, None)
            return
        room_id = key.removeprefix("room:")
        if key.startswith("room:") and room_id in node.lobby.rooms:
            log.warning("cluster: lease of room %s lost; the room leaves this node", room_id,
                        extra={"room": room_id})  # fmt: skip
            node.lobby.release(room_id)
            node.directory.unlist(room_id)
            node.owners.pop(key, None)
            await self.take(room_id, None)

    async def _coordinate(self, gone: str | None = None, *, again: bool = False) -> None:
        """Take the coordinator's lease if it is free (``gone``: from that node;
        ``again``: we had it before Redis lost its data, and run its work still)."""
        node = self.node
        if node.stopping:
            return
        if COORDINATOR in node.leases.tokens:
            if node.lobby.daily.standing_by:  # its desk could not be read: again
                await daily_keeper.reload(node.storage, node.lobby.daily, clock.now_ms())
                await node.hub.apply(lambda: node.lobby.daily_resumed(clock.now_ms()))
            return
        if not again:
            # Redis lost its data a moment ago (perhaps found just now): the lease's
            # holder, which runs its work still, is taking it back. Were it taken here,
            # every room of the cluster, free for a moment, would be resumed here too.
            await node.leases.check_epoch()
            since = node.reset_at
            if node.leases.reset or (
                since is not None and asyncio.get_running_loop().time() - since < LEASE_MS / 1000
            ):
                return
        token = await node.leases.acquire(COORDINATOR, from_node=gone)
        if token is not None and not again:
            node.waiting_read.clear()  # before any other task runs with the lease ours
            # The daily desk as the previous coordinator left it in storage, before
            # anyone is told who coordinates (a command that comes first waits).
            # (Taken back after Redis lost its data, our desk decided all along.)
            try:
                await daily_keeper.reload(node.storage, node.lobby.daily, clock.now_ms())
            except Exception as exc:  # it stands by; the next look reads it again
                log.warning("cluster: reading the daily desk failed (%s)", exc)
            try:
                await self._take_waiting()
            finally:
                node.waiting_read.set()
        elif token is not None:  # ours all along: copied again in full, to the new epoch's
            with contextlib.suppress(errors.StorageFailed):
                await node.hub.apply(lambda: node.lobby.copy_waiting_again(clock.now_ms()))
        if token is not None:
            node.owners[COORDINATOR] = node.id
            await node.bus.publish(None, {"k": "owner", "key": COORDINATOR})
            log.warning("cluster: node %s coordinates the lobby (token %d)", node.id, token)
            if node.joined and not again:
                # The tournaments another coordinator ran go on here, with their tables.
                node.later(self.resume_tournaments())
        elif again:  # another node took it first: its desk decides from now on
            node.lobby.daily.standby()
            node.lobby.head_to_head.clear()
        elif gone is not None and await node.leases.owner(COORDINATOR) not in (None, gone):
            await node.leases.disown(gone, COORDINATOR)

    async def _take_waiting(self) -> None:
        """The queue and the challenges the previous coordinator left (:mod:`.waiting`),
        taken back: a player still connected as then keeps their place; a challenge
        one of whose players is not is withdrawn, both told."""
        node = self.node
        try:
            taken = waiting.read(await node.bus.redis.hgetall(waiting.WAITING))
            alive = {node for node, up in (await node.leases.nodes()).items() if up}
        except RedisError as exc:
            log.warning("cluster: the queue and challenges could not be read (%s)", exc)
            return
        present = taken.present(node.connected_nodes, alive | {node.id})
        lobby = node.lobby
        with contextlib.suppress(errors.StorageFailed):
            await node.hub.apply(
                lambda: lobby.restore_waiting(
                    taken.waiting, taken.challenges, present, clock.now_ms()
                )
            )
        if taken.waiting or taken.challenges:
            log.warning("cluster: took back %d waiting and %d challenges, %d players still here",
                        len(taken.waiting), len(taken.challenges), len(present))  # fmt: skip

    async def look(self) -> None:
        """Nodes gone: their players are disconnected, their rooms taken as leases expire."""
        node = self.node
        await self._coordinate()
        nodes = await node.leases.nodes()
        for other, alive in nodes.items():
            if other == node.id:
                continue
            if alive:
                node.alive.add(other)
                continue
            if other in node.alive:
                node.alive.discard(other)
                log.warning("cluster: node %s is gone", other)
                for player_id in node.presence.drop_node(other):
                    if player_id not in node.delivery.by_player:
                        await node.disconnect(player_id)
            orphans = await node.leases.orphans(other)
            random.shuffle(orphans)
            for key in orphans:
                if key.startswith("room:"):
                    await self.take(key.removeprefix("room:"), other)
                elif key == COORDINATOR:
                    await self._coordinate(other)
            if not orphans:
                await node.leases.forget_node(other)
                await node.bus.redis.delete(presence_key(other))

    async def resume_tournaments(self) -> None:
        """Taking over the coordinator's work: the series it ran, claimed (:meth:`_claim`)
        and resumed here; then the daily desk checks the days' ends again."""
        node = self.node
        claimed: set[str] = set()
        try:
            await node.hub.resume_series(take=functools.partial(self._claim, claimed))
        finally:
            self._taking -= claimed
        # The attempts in play are back: the daily desk checks the days' ends again.
        await node.hub.apply(lambda: node.lobby.daily_resumed(clock.now_ms()))

    async def _claim(self, claimed: set[str], saved: Resumable) -> bool:
        """A series to resume on taking over the coordinator's work: ours if its lease
        is free (its node is gone, or handed it over), with its fence written. A room
        this node is taking already (``take``) is not claimed again; one claimed is
        not taken by ``take`` until the resumption is over. A tournament's table
        another node holds plays on there (its results come here)."""
        node = self.node
        key = room_key(saved.room_id)
        # An attempt at the daily deal is only ever the coordinator's, and is never left
        # to no one: our own ``take`` of it ends first (it may have lost the lease to
        # another node), and a lease another node holds is waited for (it looked at the
        # room and lets it go; or it died holding it, and the lease expires).
        coordinated = saved.origin in COORDINATED
        loop = asyncio.get_running_loop()
        deadline = loop.time() + CLAIM_WAIT_S
        while coordinated and saved.room_id in self._taking and loop.time() < deadline:
            await asyncio.sleep(FORWARD_RETRY_S)
        if saved.room_id in self._taking or key in node.leases.tokens:
            return False
        self._taking.add(saved.room_id)
        claimed.add(saved.room_id)
        token = await node.leases.acquire(key)
        while token is None and coordinated and loop.time() < deadline and not node.stopping:
            await asyncio.sleep(FORWARD_RETRY_S)
            token = await node.leases.acquire(key)
        if token is None:  # another node holds it: a tournament's table plays on there
            if coordinated:
                log.warning("cluster: the daily attempt in room %s is still held elsewhere",
                            saved.room_id)  # fmt: skip
            return False
        await node.storage.persist([], [Fence(key, token)])
        node.owners[key] = node.id
        node.bus.publish_later(None, {"k": "owner", "key": key})
        return True

    async def adopt(self, room_id: str, watch: dict[str, Any] | None) -> None:
        """A table the coordinator handed us (its lease is ours already): rebuilt here
        from the store, watched as its director says (``watch``); while we stop, it
        goes to whoever takes it first."""
        node = self.node
        if node.stopping:
            with contextlib.suppress(Exception):
                await node.leases.adopt(room_key(room_id))
                await node.leases.release(room_key(room_id))
                await node.bus.publish(None, {"k": "take", "room": room_id})
            return
        if watch is not None:
            members = [str(m) for m in watch["members"]]
            node.lobby.tournaments.watched_as(room_id, bool(watch["anyone"]), members)
        await self.take(room_id, None, handed=True)

    async def take(self, room_id: str, from_node: str | None, *, handed: bool = False) -> None:
        """Take ``room_id`` if its lease is free (``handed``: given to us), and rebuild
        it from the store. Any node takes any room, a tournament's table too: its
        director, on the coordinator, hears of its results wherever it is played."""
        node = self.node
        if room_id in self._taking or room_id in node.lobby.rooms or node.stopping:
            return
        self._taking.add(room_id)
        try:
            key = room_key(room_id)
            if handed:
                token = await node.leases.adopt(key)
            else:
                token = await node.leases.acquire(key, from_node=from_node)
            if token is None:
                return
            found = await node.storage.unfinished(room_id)
            if not found:  # waiting, or over: nothing to resume, as after a restart
                await node.leases.release(key)
                return
            saved = found[-1]
            if saved.origin in COORDINATED and COORDINATOR not in node.leases.tokens:
                # An attempt goes with the daily desk: to the coordinator.
                await node.leases.release(key)
                return
            if not handed and saved.origin == RoomOrigin.TOURNAMENT:
                await node.tables.watch_rule_stored(saved)
            # The fence first: from now on the previous owner cannot write for it.
            await node.storage.persist([], [Fence(key, token)])
            await node.hub.apply(lambda: node.lobby.rebuild(saved, {}, clock.now_ms()))
            node.owners[key] = node.id
            await node.bus.publish(None, {"k": "owner", "key": key})
            # A table handed over is the ordinary course of a tournament; a takeover is not.
            log.log(logging.INFO if handed else logging.WARNING,
                    "cluster: took room %s over (token %d)", room_id, token,
                    extra={"room": room_id})  # fmt: skip
        except Exception:
            log.exception("cluster: taking room %s over failed", room_id, extra={"room": room_id})
        finally:
            self._taking.discard(room_id)
