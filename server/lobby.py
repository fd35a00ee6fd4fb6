"""The lobby: every room in memory, who is in which, and the commands that span rooms.

Like a room, the lobby is synchronous and does no I/O: it creates rooms, lists
the public ones, finds a room by id or invite code, routes room commands to
their room after checking membership, and forwards connection changes and clock
ticks. It collects the rooms' domain events in :attr:`Lobby.events` for storage.
"""

from __future__ import annotations

import heapq
import logging
import secrets
from dataclasses import dataclass

from protocol.messages import (
    ClientMessage,
    CreateRoom,
    JoinRoom,
    ListRooms,
    PlayerInfo,
    Rooms,
    Visibility,
)
from server import errors
from server.events import Event
from server.room import BotFactory, BotTurn, Outbound, Phase, Room, RoomSettings

log = logging.getLogger(__name__)


class IdSource:
    """Fresh unguessable ids and secrets; tests substitute a deterministic one."""

    def room_id(self) -> str:
        return secrets.token_urlsafe(6)

    def match_id(self) -> str:
        return secrets.token_urlsafe(9)

    def invite_code(self) -> str:
        return secrets.token_urlsafe(6)

    def server_secret(self) -> str:
        return secrets.token_hex(32)


@dataclass(frozen=True, slots=True)
class LobbyConfig:
    grace_ms: int = 60_000
    finished_ttl_ms: int = 600_000
    max_waiting_rooms_per_player: int = 5
    max_open_rooms_per_player: int = 10  # waiting or playing


class Lobby:
    def __init__(
        self,
        config: LobbyConfig | None = None,
        *,
        ids: IdSource | None = None,
        bots: BotFactory | None = None,
        think_elsewhere: bool = False,
    ) -> None:
        self.config = config or LobbyConfig()
        self.ids = ids or IdSource()
        self.bots = bots
        # True: rooms do not run their bots' strategies but ask (bot_turns) and are
        # answered through bot_move; the server thinks in other processes.
        self.think_elsewhere = think_elsewhere
        self.rooms: dict[str, Room] = {}
        self.events: list[Event] = []
        self.bot_turns: list[BotTurn] = []
        self._invites: dict[str, str] = {}
        self._members: dict[str, frozenset[str]] = {}  # room id -> member ids
        self._member_of: dict[str, set[str]] = {}  # player id -> room ids
        # The clock: when each room next has something to do, and a heap of those
        # times (entries that no longer match _wake_at are skipped as they come up).
        self._wake_at: dict[str, int] = {}  # room id -> time
        self._alarms: list[tuple[int, str]] = []

    def take_events(self) -> list[Event]:
        events, self.events = self.events, []
        return events

    def take_bot_turns(self) -> list[BotTurn]:
        turns, self.bot_turns = self.bot_turns, []
        return turns

    def rooms_of(self, player_id: str) -> list[Room]:
        return [self.rooms[r] for r in sorted(self._member_of.get(player_id, ()))]

    # ------------------------------------------------------------------

    def handle(self, player: PlayerInfo, message: ClientMessage, now_ms: int) -> list[Outbound]:
        """Apply one lobby or room command; raise RoomError and change nothing if refused."""
        match message:
            case ListRooms():
                listed = [
                    room.summary()
                    for room in self.rooms.values()
                    if room.settings.visibility == Visibility.PUBLIC
                    and room.phase != Phase.FINISHED
                ]
                return [Outbound((player.id,), Rooms(rooms=listed, ref=message.ref))]
            case CreateRoom():
                return self._create(player, message, now_ms)
            case JoinRoom():
                room = self._find(player, message)
            case _:
                room_id = getattr(message, "room_id", None)
                if not isinstance(room_id, str):
                    raise errors.RoomError(
                        f"{message.type} is not a lobby command", code="bad_message"
                    )
                found = self.rooms.get(room_id)
                if found is None or not found.is_member(player.id):
                    raise errors.NotInRoom(f"you are not in room {room_id}")
                room = found
        outs = room.handle(player, message, now_ms)
        self._after(room, now_ms)
        return outs

    def _find(self, player: PlayerInfo, message: JoinRoom) -> Room:
        if message.invite_code is not None:
            room_id = self._invites.get(message.invite_code)
            if room_id is not None and (message.room_id in (None, room_id)):
                return self.rooms[room_id]
            raise errors.RoomNotFound("no room has that invite code")
        if message.room_id is None:
            raise errors.RoomError("give a room_id or an invite_code", code="bad_message")
        room = self.rooms.get(message.room_id)
        # A private room is invisible to non-members without its code.
        if room is None or (
            room.settings.visibility == Visibility.PRIVATE
            and room.seat_of(player.id) is None
            and not room.is_member(player.id)
        ):
            raise errors.RoomNotFound(f"no room {message.room_id}")
        return room

    def _create(self, player: PlayerInfo, msg: CreateRoom, now_ms: int) -> list[Outbound]:
        mine = [r.phase for r in self.rooms.values() if r.creator.id == player.id]
        waiting = mine.count(Phase.WAITING)
        if waiting >= self.config.max_waiting_rooms_per_player:
            raise errors.LimitReached(
                f"you already have {waiting} rooms waiting; start or leave one first"
            )
        # Solo rooms start at once: without this a player could keep any number playing.
        open_ = waiting + mine.count(Phase.PLAYING)
        if open_ >= self.config.max_open_rooms_per_player:
            raise errors.LimitReached(
                f"you already have {open_} rooms waiting or playing; finish one first"
            )
        room_id = self.ids.room_id()
        while room_id in self.rooms:
            room_id = self.ids.room_id()
        invite = self.ids.invite_code() if msg.visibility == Visibility.PRIVATE else None
        settings = RoomSettings(
            name=msg.name,
            visibility=msg.visibility,
            seats=msg.seats,
            pace=msg.pace,
            card_clock_ms=msg.card_clock_ms,
            deal_clock_ms=msg.deal_clock_ms,
        )
        room = Room(
            room_id,
            settings,
            player,
            now_ms=now_ms,
            server_secret=self.ids.server_secret(),
            match_id=self.ids.match_id(),
            invite_code=invite,
            contribution=msg.contribution,
            grace_ms=self.config.grace_ms,
            bots=self.bots,
            think_elsewhere=self.think_elsewhere,
        )
        self.rooms[room_id] = room
        if invite is not None:
            self._invites[invite] = room_id
        self._after(room, now_ms)
        return [room.state_for(player.id, now_ms, msg.ref)]

    def _after(self, room: Room, now_ms: int) -> None:
        """Collect the room's events, re-index its members, forget it if it is done."""
        self.events.extend(room.take_events())
        self.bot_turns.extend(room.take_bot_turns())
        closing = room.closable(now_ms, self.config.finished_ttl_ms)
        members = frozenset() if closing else frozenset(room.members())
        before = self._members.get(room.id, frozenset())
        for pid in before - members:
            rooms = self._member_of.get(pid)
            if rooms is not None:
                rooms.discard(room.id)
                if not rooms:
                    del self._member_of[pid]
        for pid in members - before:
            self._member_of.setdefault(pid, set()).add(room.id)
        self._members[room.id] = members
        if closing:
            del self.rooms[room.id]
            del self._members[room.id]
            self._wake_at.pop(room.id, None)
            if room.invite_code is not None:
                self._invites.pop(room.invite_code, None)
            return
        wake = self._next_wake(room)
        if wake is None:
            self._wake_at.pop(room.id, None)
        elif self._wake_at.get(room.id) != wake:
            self._wake_at[room.id] = wake
            heapq.heappush(self._alarms, (wake, room.id))

    def _next_wake(self, room: Room) -> int | None:
        """When the clock must next look at ``room``: a deadline, or its time to be forgotten."""
        if room.phase == Phase.FINISHED and room.finished_at is not None:
            return room.finished_at + self.config.finished_ttl_ms
        return room.next_deadline()

    # ------------------------------------------------------------------

    def bot_move(
        self, room_id: str, player_id: str, turn: int, cell: int, now_ms: int
    ) -> list[Outbound]:
        """A bot seat's chosen move (see :meth:`Room.bot_move`); RoomError if it came too late."""
        room = self.rooms.get(room_id)
        if room is None:
            raise errors.NotInRoom(f"room {room_id} is gone")
        outs = room.bot_move(player_id, turn, cell, now_ms)
        self._after(room, now_ms)
        return outs

    def connect(self, player_id: str, now_ms: int) -> list[Outbound]:
        """A connection of ``player_id`` signed in: snapshots of every room it is in."""
        outs: list[Outbound] = []
        for room in self.rooms_of(player_id):
            outs += room.set_connected(player_id, True, now_ms)
            self._after(room, now_ms)
        return outs

    def disconnect(self, player_id: str, now_ms: int) -> list[Outbound]:
        """The last connection of ``player_id`` closed: its seats start their grace period."""
        outs: list[Outbound] = []
        for room in self.rooms_of(player_id):
            outs += room.set_connected(player_id, False, now_ms)
            self._after(room, now_ms)
        return outs

    def tick(self, now_ms: int) -> list[Outbound]:
        """Let time pass for the rooms that have something due; the others are not visited."""
        due: list[Room] = []
        while self._alarms and self._alarms[0][0] <= now_ms:
            wake, room_id = heapq.heappop(self._alarms)
            if self._wake_at.get(room_id) == wake:
                del self._wake_at[room_id]
                due.append(self.rooms[room_id])
        outs: list[Outbound] = []
        for room in due:
            try:
                outs += room.tick(now_ms)
            except Exception:  # one broken room must not stop every other room's clock
                log.exception("room %s failed to tick", room.id)
            self._after(room, now_ms)
        return outs
