"""One node of a cluster: its rooms' leases, commands routed to the owners, takeover.

A room lives in the lobby of one node, its owner (the holder of its lease,
:mod:`.leases`); the room machine is unchanged. A command for a room owned
elsewhere is forwarded to the owner's channel with the player who sent it and
the connection to answer; the owner runs it as its own (stored before it is
told, as always) and delivers the room's addressed messages to the nodes where
the recipients are connected (:mod:`.delivery`). An error goes back to the one
connection that sent the command.

Every node sees every player sign in and out (a broadcast), so each lobby
knows who is online, and an owner knows who of its rooms' players is connected
and where. When a node is gone (its liveness key expired) the others count its
players as disconnected (their seats' grace period starts) and race for its
rooms' leases as they expire; the winner of each rebuilds the room from the
store as a restart does (server/room/restore.py) and sends a snapshot to its
players connected anywhere. A node that stops (SIGTERM) first stores what it
has, then releases each lease and tells the others to take the rooms at once.

Tournaments: their directors run on the coordinator, their tables anywhere. The
coordinator opens a table, then hands it to a live node in turn (stored, its
lease moved, that node told to take it); what a director asks of a table
elsewhere goes to its owner, and the owner of a table tells the coordinator
when it finished a deal or its series, which the coordinator reads from the
store (the result is durable there, so a new coordinator learns it too):
:mod:`.tables`.

Quick play's queue and the open challenges live on the coordinator too; each of
its steps copies what changed in them to Redis, and the node that takes the
coordinator's lease over takes them back before it answers any of them
(:mod:`.waiting`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import json
import logging
import random
import secrets
import weakref
from collections.abc import Coroutine, Sequence
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from protocol.fields import PlayerInfo
from protocol.head_to_head import AnswerChallenge, CancelQuickPlay, Challenge, QuickPlay
from protocol.rooms import CreateRoom, JoinRoom, ListRooms, RoomOrigin, Rooms
from protocol.wire import CLIENT_ADAPTER, ClientMessage
from server import errors
from server.daily.desk import DAILY_MESSAGES
from server.events import Event, MatchBegan, MatchEnded, RatingChanged
from server.lobby import Lobby
from server.recovery import Resumable
from server.room import Outbound
from server.shell import clock, daily_keeper
from server.shell.cluster import waiting
from server.shell.cluster.bus import VERSION as BUS_VERSION
from server.shell.cluster.bus import Bus
from server.shell.cluster.delivery import ClusterDelivery
from server.shell.cluster.directory import Directory, SharedRegistry
from server.shell.cluster.leases import COORDINATOR, LEASE_MS, RENEW_S, Leases, room_key
from server.shell.cluster.presence import Presence, presence_key
from server.shell.cluster.tables import Tables
from server.shell.session import Session
from server.storage import Fence
from server.store import Store
from server.tournaments.hosting import TOURNAMENT_MESSAGES

if TYPE_CHECKING:
    from server.shell.hub import Hub

log = logging.getLogger(__name__)

WATCH_S = 0.5  # how often the node looks for nodes gone and leases lost
FORWARD_WAIT_S = 12.0  # a command for a room changing owner waits this long for the new one
FORWARD_RETRY_S = 0.25
CLAIM_TRIES = 12  # a daily attempt's lease, held a moment by a node that let it go: tries


HEAD_TO_HEAD = (QuickPlay, CancelQuickPlay, Challenge, AnswerChallenge)
LOBBY_WIDE = (*HEAD_TO_HEAD, *TOURNAMENT_MESSAGES, *DAILY_MESSAGES)
# Rooms that go with the coordinator's work: the daily deal's attempts with the desk
# that counts them and ends their day. (A tournament's tables play on any node; their
# results reach the director through the store: server/shell/cluster/tables.py.)
COORDINATED = (RoomOrigin.DAILY,)


def new_node_id() -> str:
    return f"n-{secrets.token_hex(3)}"


class ClusterNode:
    def __init__(self, url: str, node_id: str, storage: Store, lobby: Lobby) -> None:
        if not isinstance(lobby.registry, SharedRegistry):
            raise TypeError("a cluster node's lobby keeps a SharedRegistry")
        self.id = node_id
        self.storage = storage
        self.lobby = lobby
        self.registry: SharedRegistry = lobby.registry
        lobby.tournaments.shared = True  # tables and their directors on any node
        lobby.head_to_head.shared = True  # its changes copied while we coordinate
        self.bus = Bus(url, node_id)
        self.leases = Leases(self.bus.redis, node_id, storage.newest_fence)
        self.directory = Directory(self.bus.redis, node_id)
        self.presence = Presence()
        self.delivery = ClusterDelivery(
            self.presence, self.bus.publish_later, self._signed_in, self._signed_out
        )
        self._hub: Hub | None = None
        self._alive: set[str] = {node_id}  # the nodes seen alive at the last look
        self._owner: dict[str, str] = {}  # room id -> its owner, as last heard
        self._match_room: dict[str, str] = {}  # match id -> room id (to fence placements)
        self._sessions: weakref.WeakValueDictionary[str, Session] = weakref.WeakValueDictionary()
        self._session_ids: weakref.WeakKeyDictionary[Session, str] = weakref.WeakKeyDictionary()
        self._numbers = itertools.count(1)
        self._tasks: set[asyncio.Task[Any]] = set()
        self._watcher: asyncio.Task[None] | None = None
        self._taking: set[str] = set()
        self._rated = False  # a rating moved in this step
        self._started = False  # joined: a coordinator lease taken from now on is a takeover
        self._reset_at: float | None = None  # when we last found that Redis lost its data
        self._missed = False  # a publication failed: the other nodes may have missed it
        # Commands forwarded, not yet run: True once run, False if not the owner's
        # (the owner's publication to this node after its step says which).
        self._pending: dict[str, asyncio.Future[bool]] = {}
        # Set, but for the moment between taking the coordinator's lease and taking back
        # the queue and challenges the previous one left: their commands wait for it.
        self._waiting_read = asyncio.Event()
        self._waiting_read.set()
        self.stopping = False
        self.tables = Tables(self)  # tournament tables across the nodes

    @property
    def hub(self) -> Hub:
        assert self._hub is not None
        return self._hub

    # ------------------------------------------------------------------
    # Starting and stopping

    async def start(self, hub: Hub) -> None:
        """Join the cluster: listen, learn who is online where, take what is orphaned."""
        self._hub = hub
        # The daily desk decides on the coordinator only: ours once we take its lease.
        self.lobby.daily.standby()
        await self.bus.start(self._receive)
        nodes = await self.leases.nodes()
        others = [n for n, alive in nodes.items() if alive and n != self.id]
        await self.leases.join(BUS_VERSION, others)
        for node in others:
            self._alive.add(node)
            for text in (await self.bus.redis.hgetall(presence_key(node))).values():
                player = PlayerInfo.model_validate_json(text)
                self.presence.add(player.id, node)
                await self.hub.apply(functools.partial(self._connect, player))
        if not others:
            # The first node up (a cold start): everything unfinished is ours, as after
            # a restart; the leases are taken as the lobby rebuilds the rooms.
            await hub.resume_series()
        await self._look()
        self._started = True
        if COORDINATOR in self.leases.tokens:
            if others:  # the coordinator died as we joined: its work goes on here
                self._later(self._resume_tournaments())
            else:  # a cold start: every attempt in play is back, the days may end
                await self.hub.apply(lambda: self.lobby.daily.resumed(clock.now_ms()))
        self._watcher = asyncio.create_task(self._watch(), name="cluster-watch")
        log.info("cluster node %s joined (%d other nodes)", self.id, len(others))

    async def stop(self) -> None:
        """Hand every room over: store what is decided, release, tell the others."""
        self.stopping = True
        if self._watcher is not None:
            self._watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watcher
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
            with contextlib.suppress(Exception):
                await self.leases.release(COORDINATOR)
        for task in list(self._tasks):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(task, 2.0)
        with contextlib.suppress(Exception):
            await self.bus.redis.delete(presence_key(self.id))
            await self.leases.leave()
        await self.bus.close()
        log.info("cluster node %s left, %d rooms handed over", self.id, handed)

    # ------------------------------------------------------------------
    # What the hub calls

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

    async def settle(self) -> None:
        """After a lobby step: lease the rooms it opened, publish what it changed."""
        registry = self.registry
        opened, registry.opened = registry.opened, []
        closed, registry.closed = registry.closed, []
        touched, registry.touched = registry.touched, {}
        desk = self.lobby.tournaments  # what crosses nodes: carried once the leases are held
        placed, elsewhere, results = desk.placed, desk.elsewhere, desk.results
        desk.placed, desk.elsewhere, desk.results = [], [], []
        paired, self.lobby.head_to_head.paired = self.lobby.head_to_head.paired, []
        if self._rated:  # the other nodes read the ratings again once they are stored
            self._rated = False
            self._later(self._ratings_moved())
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
            self._owner[key] = self.id
        if placed or elsewhere or results:
            await self.tables.carry(placed, elsewhere, results)
        if paired:
            self.tables.follow_players(paired)
        upsert, remove = self.directory.changes(touched.values())
        for room in closed:
            if self.directory.unlist(room.id):
                remove.append(room.id)
            if room.id in self.tables.handing:  # the node it is handed to lists and leases it
                continue
            if room.invite_code is not None:
                invites[room.invite_code] = None
            if not self.stopping:
                self._later(self.leases.release(room_key(room.id)))
        if upsert or remove or invites:
            self._later(self.directory.write(upsert, remove, invites))
        self._copy_waiting()

    def _copy_waiting(self) -> None:
        """What changed in the queue and the challenges, to Redis for the next
        coordinator (written only while our lease is the coordinator's)."""
        desk = self.lobby.head_to_head
        if not desk.changes_pending:  # nearly every step: a placement, a tick
            return
        upsert, remove = waiting.changes(desk, self.connected_nodes)
        token = self.leases.tokens.get(COORDINATOR)
        if token is not None:
            self.bus.post("EVAL", *waiting.write_args(f"{self.id} {token}", upsert, remove))

    def connected_nodes(self, player_id: str) -> set[str]:
        """The nodes ``player_id`` is connected to, as this node knows it."""
        nodes = set(self.presence.nodes_of.get(player_id, ()))
        if self.delivery.by_player.get(player_id):
            nodes.add(self.id)
        return nodes

    async def _ratings_moved(self) -> None:
        await self.storage.persist([])  # resolves once everything before it is stored
        await self.bus.publish(None, {"k": "ratings"})

    async def holds(self, room_id: str) -> bool:
        """Is ``room_id`` still ours? (A write refused by its fence: not any more.)"""
        return await self.leases.holds(room_key(room_id))

    async def route(self, session: Session, player: PlayerInfo, message: ClientMessage) -> bool:
        """Answer or forward ``message`` if it is not this node's to run; False: it is."""
        try:
            return await self._route(session, player, message)
        except RedisError as exc:
            log.warning("cluster: a %s not routed: Redis did not answer (%s)", message.type, exc)
            raise errors.RoomMoving(
                "the server's nodes cannot reach each other just now: nothing was done;"
                " send it again in a moment"
            ) from None

    async def _route(self, session: Session, player: PlayerInfo, message: ClientMessage) -> bool:
        if isinstance(message, ListRooms):
            await self._list(session, message)
            return True
        if isinstance(message, CreateRoom):
            return False
        if isinstance(message, LOBBY_WIDE):
            if self.leases.tokens.get(COORDINATOR) is not None:
                if isinstance(message, HEAD_TO_HEAD):
                    await self._waiting_taken()
                return False
            await self._forward(COORDINATOR, session, player, message)
            return True
        room_id = getattr(message, "room_id", None)
        if isinstance(message, JoinRoom) and message.invite_code is not None:
            if self.registry.by_invite(message.invite_code) is not None:
                return False
            room_id = await self.directory.invite(message.invite_code)
            if room_id is None or message.room_id not in (None, room_id):
                raise errors.RoomNotFound("no room has that invite code")
        if not isinstance(room_id, str) or room_id in self.lobby.rooms:
            return False
        await self._forward(room_key(room_id), session, player, message)
        return True

    # What the tables (server/shell/cluster/tables.py) ask of the node

    @property
    def alive(self) -> set[str]:
        return self._alive

    def owner_heard(self, key: str) -> str | None:
        return self._owner.get(key)

    def owner_is(self, key: str, node: str) -> None:
        self._owner[key] = node

    def runs(self, key: str) -> bool:
        return self._here(key)

    async def send_to_owner(self, key: str, payload: dict[str, Any]) -> None:
        await self._send_to_owner(key, payload)

    def later(self, coroutine: Any) -> None:
        self._later(coroutine)

    def publish_later(self, node: str | None, payload: dict[str, Any]) -> None:
        self.bus.publish_later(node, payload)

    def _here(self, key: str) -> bool:
        """Is what ``key`` leases (a room, the coordinator's work) run on this node now?"""
        if key == COORDINATOR:
            return key in self.leases.tokens
        return key.removeprefix("room:") in self.lobby.rooms

    # ------------------------------------------------------------------
    # Forwarding

    def _session_id(self, session: Session) -> str:
        sid = self._session_ids.get(session)
        if sid is None:
            sid = str(next(self._numbers))
            self._session_ids[session] = sid
            self._sessions[sid] = session
        return sid

    async def _forward(
        self, key: str, session: Session, player: PlayerInfo, message: ClientMessage
    ) -> None:
        payload = {
            "k": "cmd",
            "key": key,
            "sid": self._session_id(session),
            "player": player.model_dump(mode="json"),
            "msg": message.model_dump_json(),
        }
        await self._send_to_owner(key, payload)

    async def _send_to_owner(self, key: str, payload: dict[str, Any]) -> None:
        """To the holder of ``key``'s lease, until it says it has run it (a command sent
        to a node that died before running it is sent again to the next owner), waiting
        (bounded) while the lease changes hands."""
        loop = asyncio.get_running_loop()
        # A room whose owner we heard of is waited for; so is every room for a while
        # after Redis lost its data, until their owners have leased them again.
        recently_reset = self._reset_at is not None and (
            loop.time() - self._reset_at < FORWARD_WAIT_S
        )
        known = key in self._owner or key == COORDINATOR or recently_reset
        deadline = loop.time() + FORWARD_WAIT_S
        fid = str(next(self._numbers))
        payload = {**payload, "fid": fid}
        self._pending[fid] = done = loop.create_future()
        try:
            while True:
                try:
                    owner = self._owner.get(key) or await self.leases.owner(key)
                except RedisError:  # Redis restarting: as if the lease were changing hands
                    owner = None
                    known = True
                if owner is None and not known:
                    room_id = key.removeprefix("room:")
                    raise errors.NotInRoom(f"you are not in room {room_id}")
                unheard = False  # Redis did not answer: the owner we know is kept
                if owner is not None and owner != self.id:
                    self._owner[key] = owner
                    received = await self._published(owner, payload)
                    unheard = received is None
                    if received:
                        # Run, or its node died first (seen gone, or the lease moved).
                        while not done.done() and loop.time() < deadline:
                            await asyncio.wait((done,), timeout=FORWARD_RETRY_S)
                            if owner not in self._alive or self._owner.get(key) != owner:
                                break
                        if done.done() and done.result():
                            return
                        if done.done():  # not its own (any more): find the owner again
                            self._pending[fid] = done = loop.create_future()
                if self._here(key):  # it came here meanwhile
                    await self._run(payload)
                    return
                if self._owner.get(key) == owner and not unheard:
                    self._owner.pop(key, None)
                known = True
                if loop.time() >= deadline:
                    raise errors.RoomMoving(
                        "that is moving to another server node and is not back yet:"
                        " nothing was done; send it again in a moment"
                    )
                await asyncio.sleep(FORWARD_RETRY_S)
        finally:
            self._pending.pop(fid, None)

    async def _published(self, owner: str, payload: dict[str, Any]) -> bool | None:
        """Did ``owner`` receive ``payload``? (None: Redis did not answer.)"""
        try:
            return bool(await self.bus.publish(owner, dict(payload)))
        except RedisError:
            return None

    async def _run(self, payload: dict[str, Any]) -> None:
        """Something sent to the owner of a key (:meth:`_send_to_owner`), run here."""
        kind = payload.get("k")
        if kind == "table":
            await self.tables.run_request(payload)
        elif kind == "result":
            await self.tables.run_result(payload)
        else:
            await self._run_here(payload)

    async def _run_here(self, payload: dict[str, Any]) -> None:
        """A command forwarded to us (or that waited for its room to come here). The
        node it came from hears back in one publication: the step's messages for its
        players, the error if any, and ``done`` (run, or not ours: ``ran`` false)."""
        origin = payload.get("from", self.id)
        sid = payload["sid"]
        key = str(payload["key"])
        try:
            # A trusted decode: the node the player reached parsed the frame (the one
            # parse of untrusted input) and sent its model's JSON; Redis is trusted.
            message = CLIENT_ADAPTER.validate_json(payload["msg"])
            player = PlayerInfo.model_validate(payload["player"])
        except Exception:
            log.warning("cluster: a forwarded command from %s that does not parse", origin)
            return
        fid = str(payload.get("fid"))
        forwarded = origin != self.id
        if key == COORDINATOR and isinstance(message, HEAD_TO_HEAD):
            await self._waiting_taken()
        if not self._here(key) or (forwarded and self._desk_not_read(key, message)):
            # Not ours (any more), or not yet: the sender finds the owner again.
            self._owner.pop(key, None)
            if forwarded:
                self.bus.publish_later(origin, {"k": "out", "items": [], "done": fid, "ran": False})
            return
        deliver = (
            functools.partial(self.delivery.deliver, done=(origin, fid)) if forwarded else None
        )
        try:
            self.hub.require_storage()
            await self.hub.apply(
                lambda: self.lobby.handle(player, message, clock.now_ms()), deliver
            )
            return  # its messages, ``done`` with them, are on their way
        except errors.ServerError as exc:
            answer = _answer(
                sid, exc.code, exc.reason, getattr(message, "room_id", None), message.ref
            )
        except Exception:
            log.exception("internal error handling a forwarded %s", message.type)
            reason = "the server failed to handle that request"
            answer = _answer(sid, errors.INTERNAL_ERROR, reason, None, message.ref)
        if forwarded:
            self.bus.publish_later(origin, {"k": "out", "items": [], "error": answer, "done": fid})
        else:
            self._error_here(answer)

    async def _waiting_taken(self) -> None:
        """Until the queue and challenges a previous coordinator left are taken back
        (a takeover's first moments), a command for them waits (bounded)."""
        if not self._waiting_read.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._waiting_read.wait(), FORWARD_WAIT_S)

    def _desk_not_read(self, key: str, message: ClientMessage) -> bool:
        """A daily deal's command reached the coordinator before its desk was read
        again (a takeover's first moments): it waits, as for a room changing owner."""
        desk = self.lobby.daily
        return key == COORDINATOR and isinstance(message, DAILY_MESSAGES) and desk.standing_by

    def _error_here(self, answer: dict[str, Any]) -> None:
        session = self._sessions.get(str(answer.get("sid")))
        if session is not None:
            session.send_error(
                str(answer["code"]), str(answer["reason"]),
                room_id=answer.get("room_id"), ref=answer.get("ref"),
            )  # fmt: skip

    async def _list(self, session: Session, asked: ListRooms) -> None:
        try:
            rooms, after, total = await self.directory.page(asked.after, asked.limit, self._alive)
        except ValueError:
            raise errors.RoomError(
                f"{asked.after!r} is not a cursor this server gave", code="bad_message"
            ) from None
        session.send_message(Rooms(rooms=rooms, next=after, total=total, ref=asked.ref))

    # ------------------------------------------------------------------
    # The bus

    def _receive(self, payload: dict[str, Any]) -> Coroutine[Any, Any, None] | None:
        """A message from another node: handled at once if it only writes to this
        node's sessions or answers a command it forwarded, else what is left to do."""
        kind = payload.get("k")
        if kind == "out":
            self.delivery.deliver_here(payload["items"])
            error = payload.get("error")
            if error is not None:
                self._error_here(error)
            fid = payload.get("done")
            if fid is not None:
                self._answered(str(fid), payload.get("ran", True) is not False)
            return None
        if kind == "done":  # a table's request or result, answered on its own
            self._answered(str(payload.get("fid")), bool(payload.get("ran")))
            return None
        if kind == "owner":
            self._owner[str(payload["key"])] = str(payload.get("from"))
            return None
        if kind in ("cmd", "table", "result", "hello", "bye", "ratings", "take"):
            return self._receive_later(kind, payload)
        return None

    def _answered(self, fid: str, ran: bool) -> None:
        done = self._pending.get(fid)
        if done is not None and not done.done():
            done.set_result(ran)

    async def _receive_later(self, kind: str, payload: dict[str, Any]) -> None:
        origin = str(payload.get("from"))
        if kind in ("cmd", "table", "result"):
            await self._run(payload)
        elif kind == "hello":
            player = PlayerInfo.model_validate(payload["player"])
            self._alive.add(origin)
            self.presence.add(player.id, origin)
            address = payload.get("address")
            with contextlib.suppress(errors.StorageFailed):  # its rooms were set back
                await self.hub.apply(
                    lambda: self.lobby.connect(player, clock.now_ms(), address=address)
                )
        elif kind == "bye":
            player_id = str(payload["player"])
            if self.presence.remove(player_id, origin) and player_id not in self.delivery.by_player:
                await self._disconnect(player_id)
        elif kind == "ratings":
            self.lobby.ratings.load(await self.storage.ratings(), replace=True)
        elif kind == "take" and payload.get("handed"):  # a table, its lease ours already
            await self._adopt(str(payload["room"]), payload.get("watch"))
        elif kind == "take":
            room_id = str(payload["room"])
            # Its owner as last heard, stopping: a command for it meanwhile waits for the
            # next owner (an attempt at the daily deal: the next coordinator,
            # which claims it only once it has the coordinator's lease) instead of being
            # refused as for a room nobody has.
            self._owner[room_key(room_id)] = origin
            # Every node tries at once; the first to take the lease rebuilds the room.
            await asyncio.sleep(random.uniform(0, 0.05))
            await self._take(room_id, None)

    def _connect(self, player: PlayerInfo) -> list[Outbound]:
        return self.lobby.connect(player, clock.now_ms())

    async def _disconnect(self, player_id: str) -> None:
        with contextlib.suppress(errors.StorageFailed):
            await self.hub.apply(lambda: self.lobby.disconnect(player_id, clock.now_ms()))

    def _later(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("cluster: %s", task.exception())
            self._missed = True

    def _signed_in(self, player_id: str, session: Session) -> None:
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

    # ------------------------------------------------------------------
    # Watching the cluster

    async def _watch(self) -> None:
        renewed = 0.0
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(WATCH_S)
            try:
                await self.leases.check_epoch()
                if self.leases.reset:
                    await self._recover()
                if loop.time() - renewed >= RENEW_S:
                    renewed = loop.time()
                    for key in await self.leases.renew():
                        await self._lost(key)
                    if self._missed or self.bus.missed:  # Redis answers again
                        self._missed = self.bus.missed = False
                        self._later(self._resync())
                await self._look()
            except Exception as exc:
                log.warning("cluster: watching the cluster failed (%s)", exc)

    async def _recover(self) -> None:
        """Redis lost everything (restarted empty): our leases, our entries in the
        shared lists, who is connected here. We still hold our rooms in memory, and no
        other node knew to take them (the lists of what each node owns went too), so
        each is leased again, under a token of the new epoch written at once as its
        fence; the coordinator first, by the node that had it. What we had published
        is published again."""
        self.leases.reset = False
        self._reset_at = asyncio.get_running_loop().time()
        log.warning("cluster: Redis lost its data; node %s leases its rooms again", self.id)
        if COORDINATOR in self.leases.tokens:
            self.leases.tokens.pop(COORDINATOR, None)
            await self._coordinate(again=True)
        fences: list[Fence] = []
        for room_id in list(self.lobby.rooms):
            key = room_key(room_id)
            self.leases.tokens.pop(key, None)
            token = await self.leases.acquire(key)
            if token is None:  # another node leased it first: the store has its version
                await self._lost(key)
                continue
            fences.append(Fence(key, token))
            self._owner[key] = self.id
            self.bus.publish_later(None, {"k": "owner", "key": key})
        await self.storage.persist([], fences)
        self._missed = True  # who is connected here, and what the others may have missed
        self.directory.forget()
        invites: dict[str, str | None] = {
            room.invite_code: room.id
            for room in self.lobby.rooms.values()
            if room.invite_code is not None
        }
        upsert, remove = self.directory.changes(list(self.lobby.rooms.values()))
        self._later(self.directory.write(upsert, remove, invites))

    async def _resync(self) -> None:
        """After publications failed (Redis was down or lost its data): once every
        node listens again, announce who is connected here again, and send the
        players of our rooms connected elsewhere each room's snapshot, in place of
        whatever of its messages they missed (as after a takeover)."""
        await asyncio.sleep(RENEW_S)
        for player_id, sessions in list(self.delivery.by_player.items()):
            session = next((s for s in sessions if s.player is not None), None)
            if session is not None:
                self._signed_in(player_id, session)
        remote = list(self.presence.nodes_of)
        with contextlib.suppress(errors.StorageFailed):
            await self.hub.apply(lambda: self.lobby.snapshots(remote, clock.now_ms()))

    async def _lost(self, key: str) -> None:
        """Our lease on ``key`` expired (we were cut off or paused, or Redis lost it):
        another node may hold it, and the store refuses our writes for it. The room
        leaves this lobby; if its lease is free it comes back from the store (what is
        in memory may be older than what another owner stored meanwhile)."""
        if key == COORDINATOR:
            log.warning("cluster: the coordinator's lease lost; its daily desk stands by")
            self.lobby.daily.standby()
            self.lobby.head_to_head.clear()  # the next coordinator takes them back
            self._owner.pop(key, None)
            return
        room_id = key.removeprefix("room:")
        if key.startswith("room:") and room_id in self.lobby.rooms:
            log.warning("cluster: lease of room %s lost; the room leaves this node", room_id)
            self.lobby.release(room_id)
            self.directory.unlist(room_id)
            self._owner.pop(key, None)
            await self._take(room_id, None)

    async def _coordinate(self, gone: str | None = None, *, again: bool = False) -> None:
        """Take the coordinator's lease if it is free (``gone``: from that node;
        ``again``: we had it before Redis lost its data, and run its work still)."""
        if self.stopping:
            return
        if COORDINATOR in self.leases.tokens:
            if self.lobby.daily.standing_by:  # its desk could not be read: again
                await daily_keeper.reload(self.storage, self.lobby.daily, clock.now_ms())
                await self.hub.apply(lambda: self.lobby.daily.resumed(clock.now_ms()))
            return
        if not again:
            # Redis lost its data a moment ago (perhaps found just now): the lease's
            # holder, which runs its work still, is taking it back. Were it taken here,
            # every room of the cluster, free for a moment, would be resumed here too.
            await self.leases.check_epoch()
            since = self._reset_at
            if self.leases.reset or (
                since is not None and asyncio.get_running_loop().time() - since < LEASE_MS / 1000
            ):
                return
        token = await self.leases.acquire(COORDINATOR, from_node=gone)
        if token is not None and not again:
            self._waiting_read.clear()  # before any other task runs with the lease ours
            # The daily desk as the previous coordinator left it in storage, before
            # anyone is told who coordinates (a command that comes first waits).
            # (Taken back after Redis lost its data, our desk decided all along.)
            try:
                await daily_keeper.reload(self.storage, self.lobby.daily, clock.now_ms())
            except Exception as exc:  # it stands by; the next look reads it again
                log.warning("cluster: reading the daily desk failed (%s)", exc)
            try:
                await self._take_waiting()
            finally:
                self._waiting_read.set()
        elif token is not None:  # ours all along: copied again in full, to the new epoch's
            self.lobby.head_to_head.touch_all()
        if token is not None:
            self._owner[COORDINATOR] = self.id
            await self.bus.publish(None, {"k": "owner", "key": COORDINATOR})
            log.warning("cluster: node %s coordinates the lobby (token %d)", self.id, token)
            if self._started and not again:
                # The tournaments another coordinator ran go on here, with their tables.
                self._later(self._resume_tournaments())
        elif again:  # another node took it first: its desk decides from now on
            self.lobby.daily.standby()
            self.lobby.head_to_head.clear()
        elif gone is not None and await self.leases.owner(COORDINATOR) not in (None, gone):
            await self.leases.disown(gone, COORDINATOR)

    async def _take_waiting(self) -> None:
        """The queue and the challenges the previous coordinator left (:mod:`.waiting`),
        taken back: a player still connected as then keeps their place; a challenge
        one of whose players is not is withdrawn, both told."""
        try:
            taken = waiting.read(await self.bus.redis.hgetall(waiting.WAITING))
            alive = {node for node, up in (await self.leases.nodes()).items() if up}
        except RedisError as exc:
            log.warning("cluster: the queue and challenges could not be read (%s)", exc)
            return
        present = taken.present(self.connected_nodes, alive | {self.id})
        desk = self.lobby.head_to_head
        with contextlib.suppress(errors.StorageFailed):
            await self.hub.apply(
                lambda: desk.restore(taken.waiting, taken.challenges, present, clock.now_ms())
            )
        if taken.waiting or taken.challenges:
            log.warning("cluster: took back %d waiting and %d challenges, %d players still here",
                        len(taken.waiting), len(taken.challenges), len(present))  # fmt: skip

    async def _look(self) -> None:
        """Nodes gone: their players are disconnected, their rooms taken as leases expire."""
        await self._coordinate()
        nodes = await self.leases.nodes()
        for node, alive in nodes.items():
            if node == self.id:
                continue
            if alive:
                self._alive.add(node)
                continue
            if node in self._alive:
                self._alive.discard(node)
                log.warning("cluster: node %s is gone", node)
                for player_id in self.presence.drop_node(node):
                    if player_id not in self.delivery.by_player:
                        await self._disconnect(player_id)
            orphans = await self.leases.orphans(node)
            random.shuffle(orphans)
            for key in orphans:
                if key.startswith("room:"):
                    await self._take(key.removeprefix("room:"), node)
                elif key == COORDINATOR:
                    await self._coordinate(node)
            if not orphans:
                await self.leases.forget_node(node)
                await self.bus.redis.delete(presence_key(node))

    async def _resume_tournaments(self) -> None:
        claimed: set[str] = set()
        try:
            await self.hub.resume_series(take=functools.partial(self._claim, claimed))
        finally:
            self._taking -= claimed
        # The attempts in play are back: the daily desk checks the days' ends again.
        await self.hub.apply(lambda: self.lobby.daily.resumed(clock.now_ms()))

    async def _claim(self, claimed: set[str], saved: Resumable) -> bool:
        """A series to resume on taking over the coordinator's work: ours if its lease
        is free (its node is gone, or handed it over), with its fence written. A room
        this node is taking already (``_take``) is not claimed again; one claimed is
        not taken by ``_take`` until the resumption is over. A tournament's table
        another node holds plays on there (its results come here)."""
        key = room_key(saved.room_id)
        if saved.room_id in self._taking or key in self.leases.tokens:
            return False
        self._taking.add(saved.room_id)
        claimed.add(saved.room_id)
        token = await self.leases.acquire(key)
        # An attempt at the daily deal is only ever the coordinator's: another node holds
        # its lease for a moment at most (it looked at the room and let it go).
        for _ in range(CLAIM_TRIES if saved.origin in COORDINATED else 0):
            if token is not None:
                break
            await asyncio.sleep(FORWARD_RETRY_S)
            token = await self.leases.acquire(key)
        if token is None:  # another node holds it: a tournament's table plays on there
            return False
        await self.storage.persist([], [Fence(key, token)])
        self._owner[key] = self.id
        self.bus.publish_later(None, {"k": "owner", "key": key})
        return True

    async def _adopt(self, room_id: str, watch: dict[str, Any] | None) -> None:
        """A table the coordinator handed us (its lease is ours already): rebuilt here
        from the store, watched as its director says (``watch``); while we stop, it
        goes to whoever takes it first."""
        if self.stopping:
            with contextlib.suppress(Exception):
                await self.leases.adopt(room_key(room_id))
                await self.leases.release(room_key(room_id))
                await self.bus.publish(None, {"k": "take", "room": room_id})
            return
        if watch is not None:
            members = [str(m) for m in watch["members"]]
            self.lobby.tournaments.watched_as(room_id, bool(watch["anyone"]), members)
        await self._take(room_id, None, handed=True)

    async def _take(self, room_id: str, from_node: str | None, *, handed: bool = False) -> None:
        """Take ``room_id`` if its lease is free (``handed``: given to us), and rebuild
        it from the store. Any node takes any room, a tournament's table too: its
        director, on the coordinator, hears of its results wherever it is played."""
        if room_id in self._taking or room_id in self.lobby.rooms or self.stopping:
            return
        self._taking.add(room_id)
        try:
            key = room_key(room_id)
            if handed:
                token = await self.leases.adopt(key)
            else:
                token = await self.leases.acquire(key, from_node=from_node)
            if token is None:
                return
            found = await self.storage.unfinished(room_id)
            if not found:  # waiting, or over: nothing to resume, as after a restart
                await self.leases.release(key)
                return
            saved = found[-1]
            if saved.origin in COORDINATED and COORDINATOR not in self.leases.tokens:
                # An attempt goes with the daily desk: to the coordinator.
                await self.leases.release(key)
                return
            if not handed and saved.origin == RoomOrigin.TOURNAMENT:
                await self.tables.watch_rule_stored(saved)
            # The fence first: from now on the previous owner cannot write for it.
            await self.storage.persist([], [Fence(key, token)])
            await self.hub.apply(lambda: self.lobby.rebuild(saved, {}, clock.now_ms()))
            self._owner[key] = self.id
            await self.bus.publish(None, {"k": "owner", "key": key})
            # A table handed over is the ordinary course of a tournament; a takeover is not.
            log.log(logging.INFO if handed else logging.WARNING,
                    "cluster: took room %s over (token %d)", room_id, token)  # fmt: skip
        except Exception:
            log.exception("cluster: taking room %s over failed", room_id)
        finally:
            self._taking.discard(room_id)


def _answer(sid: str, code: str, reason: str, room_id: Any, ref: Any) -> dict[str, Any]:
    """An error for the connection ``sid`` of the node a command came from."""
    return {"sid": sid, "code": code, "reason": reason, "room_id": room_id, "ref": ref}
