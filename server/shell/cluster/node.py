"""One node of a cluster: what the hub and the other nodes ask of it.

A room lives in the lobby of one node, its owner (the holder of its lease,
:mod:`.leases`); the room machine is unchanged. A command for a room owned
elsewhere is forwarded to its owner, which runs it as its own (stored before it
is told, as always) and delivers the room's addressed messages to the nodes
where the recipients are connected (:mod:`.delivery`); an error goes back to
the one connection that sent the command (:mod:`.forwarding`).

Every node sees every player sign in and out (a broadcast), so each lobby
knows who is online, and an owner knows who of its rooms' players is connected
and where. When a node is gone the others count its players as disconnected
and take its rooms over (:mod:`.watching`). A node that stops (SIGTERM) first
stores what it has, then releases each lease and tells the others to take the
rooms at once.

Tournaments: their directors run on the coordinator, their tables anywhere. The
coordinator opens a table, then hands it to a live node in turn (stored, its
lease moved, that node told to take it); what a director asks of a table
elsewhere goes to its owner, and the owner of a table tells the coordinator
when it finished a deal or its series, which the coordinator reads from the
store (the result is durable there, so a new coordinator learns it too):
:mod:`.tables`.

The owner of a room tells the nodes where its seated players are connected
that it runs it (``seats``), when they take their seats, when the room comes
to it and when they sign in again elsewhere; those nodes decide which
connections are due a ``node_hint`` (:mod:`.hints`).

Quick play's queue and the open challenges live on the coordinator too; each of
its steps copies what changed in them to Redis, and the node that takes the
coordinator's lease over takes them back before it answers any of them
(:mod:`.waiting`).

:class:`ClusterNode` is one class built in layers, each its own module: the
node's state (:mod:`.base`), forwarding (:mod:`.forwarding`), watching the
cluster (:mod:`.watching`) and this one, its door: starting and stopping, what
the hub calls (the ``Cluster`` protocol of server/shell/hub.py), what the
tables ask (their ``Node`` protocol) and the bus. The methods one layer calls
in another have no underscore; they are the node's own, not the hub's.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import random
import secrets
from collections.abc import Coroutine, Sequence
from typing import TYPE_CHECKING, Any

from protocol.fields import PlayerInfo
from protocol.wire import ClientMessage
from server import errors
from server.events import Event, MatchBegan, MatchEnded, RatingChanged
from server.lobby import Lobby
from server.records import Fence
from server.room import Outbound, Room
from server.shell import clock
from server.shell.cluster import hints, waiting
from server.shell.cluster.base import NodeBase
from server.shell.cluster.bus import VERSION as BUS_VERSION
from server.shell.cluster.forwarding import Forwarding
from server.shell.cluster.leases import COORDINATOR, room_key
from server.shell.cluster.presence import presence_key
from server.shell.cluster.tables import Tables
from server.shell.cluster.watching import Watching
from server.shell.session import Session
from server.shell.tasks import halt
from server.step import SharedNotes
from server.store import Store

if TYPE_CHECKING:
    from server.shell.hub import Hub

log = logging.getLogger(__name__)


def new_node_id() -> str:
    return f"n-{secrets.token_hex(3)}"


class ClusterNode(NodeBase):
    """One node of a cluster (the hub's ``Cluster``, the tables' ``Node``): its
    state and plumbing are :class:`NodeBase`'s; its parts are ``forwarding``
    (:class:`~.forwarding.Forwarding`: commands sent to the owner of what they
    concern, and run here when this node owns it), ``watching``
    (:class:`~.watching.Watching`: the other nodes watched, leases renewed, what
    a node leaves taken over) and ``tables`` (:class:`~.tables.Tables`: the
    tournament tables across the nodes). This class is the node's door:
    starting and stopping, what the hub calls, the bus."""

    def __init__(self, url: str, node_id: str, storage: Store, lobby: Lobby) -> None:
        super().__init__(url, node_id, storage, lobby)
        self.forwarding = Forwarding(self)  # commands sent to their owners, run here
        self.watching = Watching(self)  # the other nodes watched, what they leave taken
        self._match_room: dict[str, str] = {}  # match id -> room id (to fence placements)
        self._watchers: list[asyncio.Task[None]] = []  # renewing, and looking
        self._rated = False  # a rating moved in this step
        self.tables = Tables(self)

    # ------------------------------------------------------------------
    # Starting and stopping

    async def start(self, hub: Hub) -> None:
        """Join the cluster: listen, learn who is online where, take what is orphaned."""
        self.hub = hub
        # The daily desk decides on the coordinator only: ours once we take its lease.
        self.lobby.daily.standby()
        await self.bus.start(self._receive)
        nodes = await self.leases.nodes()
        others = [n for n, alive in nodes.items() if alive and n != self.id]
        await self.leases.join(BUS_VERSION, others)
        # Renewed from now on, whatever the start below waits for (the store, under load).
        self._watchers.append(asyncio.create_task(self.watching.watch(), name="cluster-renew"))
        for node in others:
            self.alive.add(node)
            for text in (await self.bus.redis.hgetall(presence_key(node))).values():
                player = PlayerInfo.model_validate_json(text)
                self.presence.add(player.id, node)
                await self.hub.apply(functools.partial(self._connect, player))
        if not others:
            # The first node up (a cold start): everything unfinished is ours, as after
            # a restart; the leases are taken as the lobby rebuilds the rooms.
            await hub.resume_series()
        await self.watching.look()
        self.joined = True
        if COORDINATOR in self.leases.tokens:
            if others:  # the coordinator died as we joined: its work goes on here
                self.later(self.watching.resume_tournaments())
            else:  # a cold start: every attempt in play is back, the days may end
                await self.hub.apply(lambda: self.lobby.daily_resumed(clock.now_ms()))
        self._watchers.append(asyncio.create_task(self.watching.looking(), name="cluster-look"))
        log.info("cluster node %s joined (%d other nodes)", self.id, len(others))

    async def stop(self) -> None:
        """Hand every room over: store what is decided, release, tell the others."""
        self.stopping = True
        await halt(*self._watchers)  # they wait on Redis (server/shell/tasks.py)
        with contextlib.suppress(Exception):
            await self.storage.persist([])  # everything decided so far is stored
        handed = 0
        for room_id in list(self.lobby.rooms):
            self.lobby.release(room_id)
            with contextlib.suppress(Exception):
                await self.leases.release(room_key(room_id))
                await self.bus.publish(None, {"k": "take", "room": room_id})
                handed += 1
        if COORDINATOR in self.leases.tokens:  # after the tables: the next one takes them
            # Nothing more is run as the coordinator; what was run is copied before the
            # lease goes. The copy's writes are queued on the bus and the release is not:
            # the round trip behind them (in order) comes first, or the release could
            # overtake them, the copy be refused, and a place in the queue already
            # acknowledged be lost with this node.
            self.resigning = True
            with contextlib.suppress(Exception):
                await self.storage.persist([])  # every step run so far is stored, settled
                await self.bus.send("PING")
                await self.leases.release(COORDINATOR)
        await self.finish_tasks()
        with contextlib.suppress(Exception):
            await self.bus.redis.delete(presence_key(self.id))
            await self.leases.leave()
        await self.bus.close()
        log.info("cluster node %s left, %d rooms handed over", self.id, handed)

    # ------------------------------------------------------------------
    # What the hub calls

    async def route(self, session: Session, player: PlayerInfo, message: ClientMessage) -> bool:
        """Answer or forward ``message`` if it is not this node's to run
        (:meth:`Forwarding.route`); False: it is."""
        return await self.forwarding.route(session, player, message)

    async def send_to_owner(self, key: str, payload: dict[str, Any]) -> None:
        """``payload`` to the owner of ``key``, run there (:meth:`Forwarding.send_to_owner`)."""
        await self.forwarding.send_to_owner(key, payload)

    def fences(self, events: Sequence[Event]) -> list[Fence]:
        """Our lease tokens for the rooms ``events`` concern (the store checks them)."""
        keys: dict[str, int] = {}
        tokens = self.leases.tokens
        for event in events:
            room_id = getattr(event, "room_id", None)
            if room_id is None:
                match_id = getattr(event, "match_id", None)
                room_id = self._match_room.get(match_id) if match_id else None
                if type(event) is MatchEnded:
                    self._match_room.pop(event.match_id, None)
                if room_id is None:
                    continue
            elif type(event) is MatchBegan:
                self._match_room[event.match_id] = room_id
            elif type(event) is RatingChanged:
                self._rated = True
            key = room_key(room_id)
            token = tokens.get(key)
            if token is not None:
                keys[key] = token
        return [Fence(key, token) for key, token in keys.items()]

    async def settle(self, notes: SharedNotes | None) -> None:
        """After a lobby step: lease the rooms it opened, publish what it changed (its
        output's notes: server/step.py)."""
        assert notes is not None  # a node's lobby is shared
        rooms = notes.rooms
        opened, closed, touched, seated = rooms.opened, rooms.closed, rooms.touched, rooms.seated
        paired = notes.paired
        # Before the first wait: a sign-in applied meanwhile must see the rooms going on.
        moves = self.tables.follow_players(paired) if paired else []
        if self._rated:  # the other nodes read the ratings again once they are stored
            self._rated = False
            self.later(self._ratings_moved())
        invites: dict[str, str | None] = {}
        for room in opened:
            key = room_key(room.id)
            if key not in self.leases.tokens and await self.leases.acquire(key) is None:
                # Another node holds it (two nodes resumed it at once): it is theirs.
                self.lobby.release(room.id)
                continue
            if room.match is not None:
                self._match_room[room.match.id] = room.id
            if room.invite_code is not None:
                invites[room.invite_code] = room.id
            self.owners[key] = self.id
        if notes.placed or notes.elsewhere or notes.results:  # once the leases are held
            await self.tables.carry(notes.placed, notes.elsewhere, notes.results)
        if moves:
            self.tables.hand_over(moves)
        if seated:  # after the tables: a room handed on is told of by its next node
            self._seats_taken(seated)
        # Rooms let go above (another node holds them) are not listed from here.
        mine = [room for room in touched.values() if room.id in self.lobby.rooms]
        upsert, remove = self.directory.changes(mine)
        for room in closed:
            self._closed(room, remove, invites)
        if upsert or remove or invites:
            self.later(self.directory.write(upsert, remove, invites))
        if notes.waiting or notes.challenges:  # nearly never: not a placement, not a tick
            self._copy_waiting(notes.waiting, notes.challenges)

    def _closed(self, room: Room, remove: list[str], invites: dict[str, str | None]) -> None:
        """``room`` left this node's lobby for good: unlisted (added to ``remove``), its
        invite code unmapped (in ``invites``), its lease released; a room being handed
        over keeps its invite code and lease, which the node it goes to takes."""
        if self.directory.unlist(room.id):
            remove.append(room.id)
        if room.id in self.tables.handing:
            return
        if room.invite_code is not None:
            invites[room.invite_code] = None
        if not self.stopping:
            self.later(self.leases.release(room_key(room.id)))

    def unlist(self, room_id: str) -> None:
        """``room_id`` leaves the public list, if this node listed it (written later)."""
        if self.directory.unlist(room_id):
            self.later(self.directory.write({}, [room_id], {}))

    async def let_go(self, room: Room) -> None:
        """``room`` left the lobby outside a step (it could not be rebuilt or resumed),
        so no step's notes close it: it is closed here as a step's closed room is."""
        remove: list[str] = []
        invites: dict[str, str | None] = {}
        self._closed(room, remove, invites)
        if remove or invites:
            await self.directory.write({}, remove, invites)

    def _seats_taken(self, seated: list[tuple[str, str]]) -> None:
        """Seats taken in this step's rooms: the nodes their players are connected to are
        told, once the step is stored, and decide who is due a ``node_hint``
        (:mod:`.hints`)."""
        rooms, handing = self.lobby.rooms, self.tables.handing
        seats = [(r, p) for r, p in seated if r in rooms and r not in handing]
        told = hints.by_node(seats, self.connected_nodes)
        mine = told.pop(self.id, None)
        if mine:  # noted: the room runs where these connections are
            hints.tell(self.delivery.by_player, mine, self.id, self.id)
        if told:
            self.later(self._tell_seats(told))

    async def _tell_seats(self, told: dict[str, hints.Seats]) -> None:
        await self.storage.persist([])  # resolves once everything before it is stored
        for node, seats in told.items():
            self.bus.publish_later(node, {"k": "seats", "seats": seats})

    def _copy_waiting(self, players: set[str], challenges: set[str]) -> None:
        """What changed in the queue and the challenges, to Redis for the next
        coordinator (written only while our lease is the coordinator's)."""
        desk = self.lobby.head_to_head
        upsert, remove = waiting.changes(desk, (players, challenges), self.connected_nodes)
        token = self.leases.tokens.get(COORDINATOR)
        if token is not None:
            self.bus.post("EVAL", *waiting.write_args(f"{self.id} {token}", upsert, remove))

    async def _ratings_moved(self) -> None:
        await self.storage.persist([])  # resolves once everything before it is stored
        await self.bus.publish(None, {"k": "ratings"})

    async def holds(self, room_id: str) -> bool:
        """Is ``room_id`` still ours? (A write refused by its fence: not any more.)"""
        return await self.leases.holds(room_key(room_id))

    # What the tables (server/shell/cluster/tables.py) ask of the node

    def owner_heard(self, key: str) -> str | None:
        return self.owners.get(key)

    def owner_is(self, key: str, node: str) -> None:
        self.owners[key] = node

    def publish_later(self, node: str | None, payload: dict[str, Any]) -> None:
        self.bus.publish_later(node, payload)

    # ------------------------------------------------------------------
    # The bus

    def _receive(self, payload: dict[str, Any]) -> Coroutine[Any, Any, None] | None:
        """A message from another node: handled at once if it only writes to this
        node's sessions or answers a command it forwarded, else what is left to do."""
        kind = payload.get("k")
        if kind == "out":
            self.delivery.deliver_here(
                payload["items"], self.forwarding.session_of(payload.get("sid"))
            )
            error = payload.get("error")
            if error is not None:
                self.forwarding.error_here(error)
            fid = payload.get("done")
            if fid is not None:
                self.forwarding.answered(str(fid), payload.get("ran", True) is not False)
            return None
        if kind == "done":  # a table's request or result, answered on its own
            self.forwarding.answered(str(payload.get("fid")), bool(payload.get("ran")))
            return None
        if kind == "owner":
            self.owners[str(payload["key"])] = str(payload.get("from"))
            return None
        if kind == "seats":  # seats in rooms the sender runs, of players connected here
            hints.tell(self.delivery.by_player, payload["seats"], str(payload["from"]), self.id)
            return None
        if kind in ("cmd", "table", "result", "hello", "bye", "ratings", "take"):
            return self._receive_later(kind, payload)
        return None

    async def _receive_later(self, kind: str, payload: dict[str, Any]) -> None:
        origin = str(payload.get("from"))
        if kind in ("cmd", "table", "result"):
            await self.forwarding.run(payload)
        elif kind == "hello":
            player = PlayerInfo.model_validate(payload["player"])
            self.alive.add(origin)
            self.presence.add(player.id, origin)
            address = payload.get("address")
            with contextlib.suppress(errors.StorageFailed):  # its rooms were set back
                await self.hub.apply(
                    lambda: self.lobby.connect(player, clock.now_ms(), address=address)
                )
            # Not a room being handed on (a pairing may have run while the sign-in was
            # applied): the node it goes to tells of it.
            handing = self.tables.handing
            seats = [
                [room.id, player.id]
                for room in self.lobby.rooms_of(player.id)
                if room.seat_of(player.id) is not None and room.id not in handing
            ]
            if seats:  # its new connection there may be due a node_hint (.hints)
                self.bus.publish_later(origin, {"k": "seats", "seats": seats})
        elif kind == "bye":
            player_id = str(payload["player"])
            if self.presence.remove(player_id, origin) and player_id not in self.delivery.by_player:
                await self.disconnect(player_id)
        elif kind == "ratings":
            self.lobby.ratings.load(await self.storage.ratings(), replace=True)
        elif kind == "take" and payload.get("handed"):  # a table, its lease ours already
            await self.watching.adopt(str(payload["room"]), payload.get("watch"))
        elif kind == "take":
            room_id = str(payload["room"])
            # Its owner as last heard, stopping: a command for it meanwhile waits for the
            # next owner (an attempt at the daily deal: the next coordinator,
            # which claims it only once it has the coordinator's lease) instead of being
            # refused as for a room nobody has.
            self.owners[room_key(room_id)] = origin
            # Every node tries at once; the first to take the lease rebuilds the room.
            await asyncio.sleep(random.uniform(0, 0.05))
            await self.watching.take(room_id, None)

    def _connect(self, player: PlayerInfo) -> list[Outbound]:
        return self.lobby.connect(player, clock.now_ms())
