"""Which connections are told that a room of theirs runs on another node (``node_hint``).

The one place that decides it. The owner of a room knows who holds a seat in
it; the node a connection is on knows what that connection asked for. So the
owner says, to each node where a seated player is connected, "``player`` has a
seat in ``room``, run here" (``seats``, :func:`by_node`): when the player takes
the seat (a join, a paired room, a table), when the room comes to the owner
(a takeover, a handover: every seat is new to its lobby) and when the player
signs in again on another node. That node then asks :func:`due` for each of
that player's connections: a hint goes only to a connection whose ``hello``
said ``follow_node``, on another node than the owner, whose URL did not ask
for the owner already (``?node=OWNER`` that still landed here), once per
connection and room, and again only once the room has come to another node
since. The owner's own connections of the player are noted too (nothing is
sent): the room is run where they are, and if it goes and comes back they
are told.

Nothing here runs per placement: the owner's lobby notes seats as a room's
members change (server/registry.py, Lobby.settle), which a placement never does.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping

from protocol.connection import NodeHint
from server.shell.session import Session

# (room id, player id) pairs: a player with a seat in a room run by the node that says so.
Seats = list[list[str]]


def due(session: Session, room_id: str, owner: str, here: str) -> NodeHint | None:
    """The hint ``session`` (on node ``here``) is due, now that ``owner`` runs
    ``room_id`` with a seat of its player: none if it was last told of that owner."""
    if session.hinted.get(room_id) == owner:
        return None
    session.hinted[room_id] = owner
    if owner == here or not session.follow_node or session.asked_node == owner:
        return None
    return NodeHint(node=owner, room_id=room_id)


def tell(
    by_player: Mapping[str, Collection[Session]], seats: Iterable[list[str]], owner: str, here: str
) -> None:
    """``owner`` runs these rooms with these players seated: each connection of
    theirs on this node that is due a hint gets it."""
    for room_id, player_id in seats:
        for session in by_player.get(player_id, ()):
            hint = due(session, room_id, owner, here)
            if hint is not None:
                session.send_message(hint)


def by_node(
    seats: Iterable[tuple[str, str]], nodes_of: Callable[[str], Collection[str]]
) -> dict[str, Seats]:
    """The seats to tell each node: the nodes each player is connected to."""
    told: dict[str, Seats] = {}
    for room_id, player_id in seats:
        for node in nodes_of(player_id):
            told.setdefault(node, []).append([room_id, player_id])
    return told
