"""Commands sent to the owner of what they concern, and run there.

A command for a room owned elsewhere (or for the coordinator's work: quick
play, challenges, tournaments, the daily deal) is forwarded to the owner's
channel with the player who sent it and the connection to answer
(:meth:`Forwarding.route`). The sender waits, bounded, until the owner says
it ran it; a command sent to a node that died before running it, or that the
owner no longer holds, is sent again to the next owner, and one whose room
came here meanwhile runs here. The owner runs it as its own (stored before it
is told) and answers the node it came from in one publication: the step's
messages for its players, the error for that one connection if any, and
``done`` (:meth:`Forwarding.run`). A tournament table's requests and
results go to their owners the same way (:mod:`.tables`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import logging
import weakref
from collections.abc import Callable
from typing import Any

from redis.exceptions import RedisError

from protocol.daily import DailyRequest
from protocol.fields import PlayerInfo
from protocol.head_to_head import HeadToHeadRequest
from protocol.rooms import CreateRoom, JoinRoom, ListRooms, Rooms
from protocol.tournaments import GetTournament, TournamentRequest
from protocol.wire import CLIENT_ADAPTER, ClientMessage, addressed_room
from server import errors
from server.room import Outbound
from server.shell import clock
from server.shell.cluster.base import NodeBase
from server.shell.cluster.leases import COORDINATOR, room_key
from server.shell.session import Session

log = logging.getLogger(__name__)

FORWARD_WAIT_S = 12.0  # a command for a room changing owner waits this long for the new one
FORWARD_RETRY_S = 0.25

# The areas run by the coordinator (protocol's area unions): no list kept here.
LOBBY_WIDE = HeadToHeadRequest | TournamentRequest | DailyRequest


class Forwarding:
    """A node's commands sent to their owners, and those sent to it run: a part of
    its :class:`~.node.ClusterNode`, acting on the node's state (``node``)."""

    def __init__(self, node: NodeBase) -> None:
        self.node = node
        self._sessions: weakref.WeakValueDictionary[str, Session] = weakref.WeakValueDictionary()
        self._session_ids: weakref.WeakKeyDictionary[Session, str] = weakref.WeakKeyDictionary()
        self._numbers = itertools.count(1)
        # Commands forwarded, not yet run: True once run, False if not the owner's
        # (the owner's publication to this node after its step says which).
        self._pending: dict[str, asyncio.Future[bool]] = {}

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
        node = self.node
        if isinstance(message, ListRooms):
            await self._list(session, message)
            return True
        if isinstance(message, CreateRoom):
            return False
        if isinstance(message, LOBBY_WIDE):
            if node.leases.tokens.get(COORDINATOR) is not None:
                if isinstance(message, HeadToHeadRequest):
                    await self._waiting_taken()
                return False
            await self._forward(COORDINATOR, session, player, message)
            return True
        room_id = addressed_room(message)
        if isinstance(message, JoinRoom) and message.invite_code is not None:
            if node.registry.by_invite(message.invite_code) is not None:
                return False
            room_id = await node.directory.invite(message.invite_code)
            if room_id is None or message.room_id not in (None, room_id):
                raise errors.RoomNotFound("no room has that invite code")
        if not isinstance(room_id, str) or room_id in node.lobby.rooms:
            return False
        await self._forward(room_key(room_id), session, player, message)
        return True

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
        node = self.node
        payload = {
            "k": "cmd",
            "key": key,
            "sid": self._session_id(session),
            "player": player.model_dump(mode="json"),
            "msg": message.model_dump_json(),
            # The player's one connection (nearly always): no other to keep its ref from.
            "alone": node.delivery.alone(player.id, session),
        }
        await self.send_to_owner(key, payload)

    async def send_to_owner(self, key: str, payload: dict[str, Any]) -> None:
        """To the holder of ``key``'s lease, until it says it has run it (a command sent
        to a node that died before running it is sent again to the next owner), waiting
        (bounded) while the lease changes hands."""
        node = self.node
        loop = asyncio.get_running_loop()
        # A room whose owner we heard of is waited for; so is every room for a while
        # after Redis lost its data, until their owners have leased them again.
        recently_reset = node.reset_at is not None and (
            loop.time() - node.reset_at < FORWARD_WAIT_S
        )
        known = key in node.owners or key == COORDINATOR or recently_reset
        deadline = loop.time() + FORWARD_WAIT_S
        fid = str(next(self._numbers))
        payload = {**payload, "fid": fid}
        self._pending[fid] = done = loop.create_future()
        try:
            while True:
                try:
                    owner = node.owners.get(key) or await node.leases.owner(key)
                except RedisError:  # Redis restarting: as if the lease were changing hands
                    owner = None
                    known = True
                if owner is None and not known:
                    room_id = key.removeprefix("room:")
                    raise errors.NotInRoom(f"you are not in room {room_id}")
                unheard = False  # Redis did not answer: the owner we know is kept
                if owner is not None and owner != node.id:
                    node.owners[key] = owner
                    received = await self._published(owner, payload)
                    unheard = received is None
                    if received:
                        # Run, or its node died first (seen gone, or the lease moved).
                        while not done.done() and loop.time() < deadline:
                            await asyncio.wait((done,), timeout=FORWARD_RETRY_S)
                            if owner not in node.alive or node.owners.get(key) != owner:
                                break
                        if done.done() and done.result():
                            return
                        if done.done():  # not its own (any more): find the owner again
                            self._pending[fid] = done = loop.create_future()
                if node.runs(key):  # it came here meanwhile
                    await self.run(payload)
                    return
                if node.owners.get(key) == owner and not unheard:
                    node.owners.pop(key, None)
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
        node = self.node
        try:
            return bool(await node.bus.publish(owner, dict(payload)))
        except RedisError:
            return None

    async def run(self, payload: dict[str, Any]) -> None:
        """Something sent to the owner of a key (:meth:`send_to_owner`), run here."""
        node = self.node
        kind = payload.get("k")
        if kind == "table":
            await node.tables.run_request(payload)
        elif kind == "result":
            await node.tables.run_result(payload)
        else:
            await self._run_here(payload)

    async def _run_here(self, payload: dict[str, Any]) -> None:
        """A command forwarded to us (or that waited for its room to come here). The
        node it came from hears back in one publication: the step's messages for its
        players, the error if any, and ``done`` (run, or not ours: ``ran`` false)."""
        node = self.node
        origin = payload.get("from", node.id)
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
        forwarded = origin != node.id
        if key == COORDINATOR and isinstance(message, HeadToHeadRequest):
            await self._waiting_taken()
        if not node.runs(key) or (forwarded and self._desk_not_read(key, message)):
            # Not ours (any more), or not yet: the sender finds the owner again.
            node.owners.pop(key, None)
            if forwarded:
                node.bus.publish_later(origin, {"k": "out", "items": [], "done": fid, "ran": False})
            return

        def produce() -> list[Outbound]:
            return node.lobby.handle(player, message, clock.now_ms())

        deliver: Callable[[list[Outbound]], None] | None
        if isinstance(message, GetTournament):  # a read: paid here, for the asker alone
            address = node.lobby.addresses.get(player.id, "")
            produce = node.hub.tournament_read(player, message, address)
            asking = self.session_of(sid)
            if forwarded:
                deliver = functools.partial(
                    node.delivery.answer_alone,
                    player_id=player.id,
                    done=(origin, fid),
                    sid=str(sid),
                )
            else:
                deliver = None if asking is None else node.hub.here(asking, player.id)
        elif forwarded:
            asker = None  # the answer's ref for the asking connection alone, if it has others
            if message.ref is not None and not (
                payload.get("alone", True) and player.id not in node.delivery.by_player
            ):
                asker = (player.id, message.ref, str(sid))
            deliver = functools.partial(node.delivery.deliver, done=(origin, fid), asker=asker)
        else:
            deliver = node.hub.answering(self.session_of(sid), player.id, message.ref)
        try:
            node.hub.require_storage()
            await node.hub.apply(produce, deliver)
            return  # its messages, ``done`` with them, are on their way
        except errors.ServerError as exc:
            answer = _answer(sid, exc.code, exc.reason, addressed_room(message), message.ref)
        except Exception:
            log.exception("internal error handling a forwarded %s", message.type)
            reason = "the server failed to handle that request"
            answer = _answer(sid, errors.INTERNAL_ERROR, reason, None, message.ref)
        if forwarded:
            node.bus.publish_later(origin, {"k": "out", "items": [], "error": answer, "done": fid})
        else:
            self.error_here(answer)

    async def _waiting_taken(self) -> None:
        """Until the queue and challenges a previous coordinator left are taken back
        (a takeover's first moments), a command for them waits (bounded)."""
        node = self.node
        if not node.waiting_read.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(node.waiting_read.wait(), FORWARD_WAIT_S)

    def _desk_not_read(self, key: str, message: ClientMessage) -> bool:
        """A daily deal's command reached the coordinator before its desk was read
        again (a takeover's first moments): it waits, as for a room changing owner."""
        node = self.node
        desk = node.lobby.daily
        return key == COORDINATOR and isinstance(message, DailyRequest) and desk.standing_by

    def session_of(self, sid: object) -> Session | None:
        """The connection here a forwarded command came from, by its id."""
        return None if sid is None else self._sessions.get(str(sid))

    def error_here(self, answer: dict[str, Any]) -> None:
        """An error a command's owner answered (:func:`_answer`), to its connection here."""
        session = self.session_of(answer.get("sid"))
        if session is not None:
            session.send_error(
                str(answer["code"]), str(answer["reason"]),
                room_id=answer.get("room_id"), ref=answer.get("ref"),
            )  # fmt: skip

    async def _list(self, session: Session, asked: ListRooms) -> None:
        node = self.node
        try:
            rooms, after, total = await node.directory.page(asked.after, asked.limit, node.alive)
        except ValueError:
            raise errors.RoomError(
                f"{asked.after!r} is not a cursor this server gave", code="bad_message"
            ) from None
        session.send_message(Rooms(rooms=rooms, next=after, total=total, ref=asked.ref))

    def answered(self, fid: str, ran: bool) -> None:
        """The owner's word on the command forwarded as ``fid``: run, or not its own."""
        done = self._pending.get(fid)
        if done is not None and not done.done():
            done.set_result(ran)


def _answer(sid: str, code: str, reason: str, room_id: Any, ref: Any) -> dict[str, Any]:
    """An error for the connection ``sid`` of the node a command came from."""
    return {"sid": sid, "code": code, "reason": reason, "room_id": room_id, "ref": ref}
