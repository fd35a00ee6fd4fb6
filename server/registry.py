"""Where a room is found: by id, by invite code, by member, and in the public list.

The lobby's registry of the rooms this server holds in memory. Pure and
synchronous; it decides nothing about a room, it only keeps the indexes right
as the lobby tells it a room opened, changed or went (:meth:`RoomRegistry.add`,
:meth:`RoomRegistry.reindex`, :meth:`RoomRegistry.forget`). It is the seam a
server of many nodes replaces with a shared one (docs/architecture.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from protocol.fields import Visibility
from server.listing import Listing
from server.room import Phase, Room


@dataclass(slots=True)
class RoomNotes:
    """What a shared registry saw since it was last asked (a cluster's node tells the
    other nodes of it: server/step.py)."""

    opened: list[Room] = field(default_factory=list)
    closed: list[Room] = field(default_factory=list)
    touched: dict[str, Room] = field(default_factory=dict)  # public rooms reindexed
    seated: list[tuple[str, str]] = field(default_factory=list)  # (room id, player id)


class RoomRegistry:
    def __init__(self) -> None:
        # Shared (a cluster's node): what changed is also noted, for the other nodes.
        self.notes: RoomNotes | None = None
        self.rooms: dict[str, Room] = {}
        # The public rooms waiting or playing, kept as rooms change (list_rooms pages it).
        self.listed: Listing[Room] = Listing()
        self._invites: dict[str, str] = {}  # invite code -> room id
        self._members: dict[str, frozenset[str]] = {}  # room id -> member ids
        self._member_of: dict[str, set[str]] = {}  # player id -> room ids

    def share(self) -> None:
        """From now on, note what changes (:meth:`take_notes`)."""
        if self.notes is None:
            self.notes = RoomNotes()

    def take_notes(self) -> RoomNotes:
        """What was noted since the last time (nothing if not shared)."""
        notes = self.notes
        if notes is None:
            return RoomNotes()
        self.notes = RoomNotes()
        return notes

    def add(self, room: Room) -> None:
        self.rooms[room.id] = room
        if room.invite_code is not None:
            self._invites[room.invite_code] = room.id
        if self.notes is not None:
            self.notes.opened.append(room)

    def by_invite(self, code: str) -> Room | None:
        room_id = self._invites.get(code)
        return self.rooms.get(room_id) if room_id is not None else None

    def rooms_of(self, player_id: str) -> list[Room]:
        return [self.rooms[r] for r in sorted(self._member_of.get(player_id, ()))]

    def reindex(self, room: Room) -> None:
        """``room`` (still open) may have changed its members or its place in the list."""
        public = room.settings.visibility == Visibility.PUBLIC
        if public and room.phase != Phase.FINISHED:
            self.listed.add(room.id, room)
        else:
            self.listed.discard(room.id)
        if public and self.notes is not None:
            self.notes.touched[room.id] = room
        members = frozenset(room.members())
        known = self._members.get(room.id)
        if members == known:  # most commands (a placement) change nobody's membership
            return
        before = known or frozenset()
        for pid in before - members:
            self._leave(pid, room.id)
        joined = members - before
        for pid in joined:
            self._member_of.setdefault(pid, set()).add(room.id)
        self._members[room.id] = members
        if joined:
            self._note_seats(room, joined)

    def _note_seats(self, room: Room, player_ids: frozenset[str]) -> None:
        """``player_ids`` became members of ``room`` (a seat taken or taken back, a
        spectator, or the room new here): a seat is noted, if shared (a spectator is
        not told where a room runs)."""
        if self.notes is None:
            return
        for pid in sorted(player_ids):
            if room.seat_of(pid) is not None:
                self.notes.seated.append((room.id, pid))

    def forget(self, room: Room) -> None:
        """``room`` leaves memory: nobody is a member of it any more."""
        self.listed.discard(room.id)
        for pid in self._members.pop(room.id, frozenset()):
            self._leave(pid, room.id)
        self.rooms.pop(room.id, None)
        if room.invite_code is not None:
            self._invites.pop(room.invite_code, None)
        if self.notes is not None:
            self.notes.closed.append(room)
            self.notes.touched.pop(room.id, None)

    def _leave(self, player_id: str, room_id: str) -> None:
        rooms = self._member_of.get(player_id)
        if rooms is not None:
            rooms.discard(room_id)
            if not rooms:
                del self._member_of[player_id]
