"""The node's entries in the shared list of rooms: made again only when a room's summary
can have changed, and all of them again once Redis lost them."""

from __future__ import annotations

from protocol.rooms import JoinRoom
from server.shell.cluster.directory import Directory
from tests.server.roomkit import BOB, make_room


def test_an_entry_is_made_again_only_when_the_summary_can_have_changed() -> None:
    directory = Directory(None, "n1")  # type: ignore[arg-type]  # no Redis: nothing written
    room = make_room(2)
    upsert, remove = directory.changes([room])
    assert list(upsert) == [room.id] and remove == []
    assert directory.changes([room]) == ({}, [])  # nothing changed: nothing to write
    room.handle(BOB, JoinRoom(room_id=room.id), 0)
    upsert, _ = directory.changes([room])  # a seat taken: the summary says so
    assert '\\"taken\\":2' in upsert[room.id]
    assert directory.changes([room]) == ({}, [])
    directory.forget()  # Redis lost the list: every room is listed again
    assert list(directory.changes([room])[0]) == [room.id]
