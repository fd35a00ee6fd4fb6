"""Where a room is found: by id, by invite code, by member, and in the public list.

The lobby's registry of the rooms this server holds in memory. Pure and
synchronous; it decides nothing about a room, it only keeps the indexes right
as the lobby tells it a room opened, changed or went (:meth:`RoomRegistry.add`,
:meth:`RoomRegistry.reindex`, :meth:`RoomRegistry.forget`). It keeps no notes:
what a cluster's other nodes hear of, the lobby notes in its step's result
(server/step.py).
"""

from __future__ import annotations

from protocol.fields import Visibility
from server.listing import Listing
from server.room import Phase, Room

NOBODY: frozenset[str] = frozenset()


class RoomRegistry:
    def __init__(self) -> None:
        self.rooms: dict[str, Room] = {}
        # The public rooms waiting or playing, kept as rooms change (list_rooms pages it).
        self.listed: Listing[Room] = Listing()
        self._invites: dict[str, str] = {}  # invite code -> room id
        self._members: dict[str, frozenset[str]] = {}  # room id -> member ids
        self._member_of: dict[str, set[str]] = {}  # player id -> room ids

    def add(self, room: Room) -> None:
        self.rooms[room.id] = room
        if room.invite_code is not None:
            self._invites[room.invite_code] = room.id

    def by_invite(self, code: str) -> Room | None:
        room_id = self._invites.get(code)
        return self.rooms.get(room_id) if room_id is not None else None

    def rooms_of(self, player_id: str) -> list[Room]:
        return [self.rooms[r] for r in sorted(self._member_of.get(player_id, ()))]

    def reindex(self, room: Room) -> frozenset[str]:
        """``room`` (still open) may have changed its members or its place in the list.
        Returns who became a member of it (a seat taken or taken back, a spectator, or
        the room new here)."""
        public = room.settings.visibility == Visibility.PUBLIC
        if public and room.phase != Phase.FINISHED:
            self.listed.add(room.id, room)
        else:
            self.listed.discard(room.id)
        members = frozenset(room.members())
        known = self._members.get(room.id)
        if members == known:  # most commands (a placement) change nobody's membership
            return NOBODY
        before = known or NOBODY
        for pid in before - members:
            self._leave(pid, room.id)
        joined = members - before
        for pid in joined:
            self._member_of.setdefault(pid, set()).add(room.id)
        self._members[room.id] = members
        return joined

    def forget(self, room: Room) -> None:
        """``room`` leaves memory: nobody is a member of it any more."""
        self.listed.discard(room.id)
        for pid in self._members.pop(room.id, frozenset()):
            self._leave(pid, room.id)
        self.rooms.pop(room.id, None)
        if room.invite_code is not None:
            self._invites.pop(room.invite_code, None)

    def _leave(self, player_id: str, room_id: str) -> None:
        rooms = self._member_of.get(player_id)
        if rooms is not None:
            rooms.discard(room_id)
            if not rooms:
                del self._member_of[player_id]
