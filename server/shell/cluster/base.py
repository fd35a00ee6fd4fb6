"""A cluster node's state, and what every part of a node stands on.

:class:`NodeBase` holds what a node knows of the cluster: its leases
(:mod:`.leases`), the bus to the other nodes (:mod:`.bus`), the rooms listed
in Redis (:mod:`.directory`), who is connected where (:mod:`.presence`,
:mod:`.delivery`), the owner of each room as last heard and the nodes seen
alive. Beyond that it only announces this node's players signing in and out,
counts a player who is connected nowhere any more as disconnected, and runs
the node's background tasks. The node's parts act on it, each a module with
one job: commands sent to the owner of a room (:mod:`.forwarding`), the watch
over the other nodes, with takeover and recovery (:mod:`.watching`), and the
tournament tables across the nodes (:mod:`.tables`), composed by the node's
door, :class:`~.node.ClusterNode`: starting and stopping, what the hub calls,
the bus (:mod:`.node`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import TYPE_CHECKING, Any

from server import errors
from server.lobby import Lobby
from server.shell import clock
from server.shell.cluster.bus import Bus
from server.shell.cluster.delivery import ClusterDelivery
from server.shell.cluster.directory import Directory
from server.shell.cluster.leases import COORDINATOR, Leases
from server.shell.cluster.presence import Presence, presence_key
from server.shell.session import Session
from server.shell.tasks import halt
from server.store import Store

if TYPE_CHECKING:
    from server.shell.cluster.tables import Tables
    from server.shell.hub import Hub

log = logging.getLogger(__name__)


class NodeBase:
    """A cluster node's state and its plumbing (the node's parts act on it)."""

    tables: Tables  # tournament tables across the nodes, made by the node itself

    def __init__(self, url: str, node_id: str, storage: Store, lobby: Lobby) -> None:
        self.id = node_id
        self.storage = storage
        self.lobby = lobby
        self.registry = lobby.registry
        lobby.share()  # each step's output carries what the other nodes hear of
        self.bus = Bus(url, node_id)
        self.leases = Leases(self.bus.redis, node_id, storage.newest_fence)
        self.directory = Directory(self.bus.redis, node_id)
        self.presence = Presence()
        self.delivery = ClusterDelivery(
            self.presence, self.bus.publish_later, self.signed_in, self._signed_out
        )
        self._hub: Hub | None = None
        self.alive: set[str] = {node_id}  # the nodes seen alive at the last look
        self.owners: dict[str, str] = {}  # room id -> its owner, as last heard
        self._tasks: set[asyncio.Task[Any]] = set()
        self.joined = False  # a coordinator lease taken from now on is a takeover
        self.reset_at: float | None = None  # when we last found that Redis lost its data
        self.missed = False  # a publication failed: the other nodes may have missed it
        # Set, but for the moment between taking the coordinator's lease and taking back
        # the queue and challenges the previous one left: their commands wait for it.
        self.waiting_read = asyncio.Event()
        self.waiting_read.set()
        self.stopping = False
        # Stopping, the coordinator's work about to go: its commands are sent back, to
        # find the next coordinator, while the last copy of the queue is written.
        self.resigning = False

    @property
    def hub(self) -> Hub:
        assert self._hub is not None
        return self._hub

    @hub.setter
    def hub(self, hub: Hub) -> None:
        self._hub = hub

    def connected_nodes(self, player_id: str) -> set[str]:
        """The nodes ``player_id`` is connected to, as this node knows it."""
        nodes = set(self.presence.nodes_of.get(player_id, ()))
        if self.delivery.by_player.get(player_id):
            nodes.add(self.id)
        return nodes

    def runs(self, key: str) -> bool:
        """Is what ``key`` leases (a room, the coordinator's work) run on this node now?"""
        if key == COORDINATOR:
            return key in self.leases.tokens and not self.resigning
        return key.removeprefix("room:") in self.lobby.rooms

    async def disconnect(self, player_id: str) -> None:
        """``player_id`` is connected to no node any more: their seats' grace begins."""
        with contextlib.suppress(errors.StorageFailed):
            await self.hub.apply(lambda: self.lobby.disconnect(player_id, clock.now_ms()))

    def later(self, coroutine: Any) -> None:
        """Run ``coroutine`` in the background (a failure is logged, and counted as a
        publication the other nodes may have missed)."""
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("cluster: %s", task.exception())
            self.missed = True

    async def finish_tasks(self) -> None:
        """The background tasks, each given a moment to finish (as the node stops)."""
        if self._tasks:  # not wait_for: its cancellation of a late task can be dropped
            _, late = await asyncio.wait(list(self._tasks), timeout=2.0)
            await halt(*late)

    def signed_in(self, player_id: str, session: Session) -> None:
        """Announced to the other nodes: ``player_id`` is connected here."""
        player = session.player
        assert player is not None
        text = player.model_dump_json()
        self.bus.post("HSET", presence_key(self.id), player_id, text)
        self.bus.publish_later(
            None, {"k": "hello", "player": json.loads(text), "address": session.address}
        )

    def _signed_out(self, player_id: str) -> None:
        self.bus.post("HDEL", presence_key(self.id), player_id)
        self.bus.publish_later(None, {"k": "bye", "player": player_id})
