"""Routing from the schema: the client's union is assembled from the areas' unions
(protocol.connection, .rooms, .deals, .head_to_head, .tournaments, .daily), each
client message is in exactly one area, and what the server routes and counts is
read from them (no hand-kept list of message types in server/)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args

from protocol import connection, daily, deals, head_to_head, rooms, tournaments
from protocol.wire import CLIENT_TYPES, ClientMessage

ROOT = Path(__file__).resolve().parents[2]
AREAS = {
    "connection": get_args(connection.ConnectionRequest),
    "rooms": get_args(rooms.RoomRequest),
    "deals": (deals.DealRequest,),
    "head_to_head": get_args(head_to_head.HeadToHeadRequest),
    "ratings": get_args(head_to_head.RatingsRequest),
    "tournaments": get_args(tournaments.TournamentRequest),
    "daily": get_args(daily.DailyRequest),
}


def test_every_client_message_is_in_exactly_one_area_and_the_union_is_theirs() -> None:
    members = [kind for area in AREAS.values() for kind in area]
    assert len(members) == len(set(members))
    assert set(members) == set(get_args(get_args(ClientMessage)[0]))
    assert len(CLIENT_TYPES) == len(members)


def test_every_server_message_is_in_its_own_module_s_area_and_the_union_is_theirs() -> None:
    """Each area's module keeps the union of the server messages it defines
    (``ConnectionNews``, ``RoomNews``...): a new message is added there, and the
    server's union (protocol.wire) is those unions, with no list of its own."""
    from protocol.fields import Message, Request
    from protocol.wire import ServerMessage

    news = {
        connection: connection.ConnectionNews, rooms: rooms.RoomNews, deals: deals.DealNews,
        head_to_head: head_to_head.HeadToHeadNews, tournaments: tournaments.TournamentNews,
        daily: daily.DailyNews,
    }  # fmt: skip
    union: set[type] = set()
    for module, area in news.items():
        members = set(get_args(area)) or {area}
        defined = {
            kind
            for kind in vars(module).values()
            if isinstance(kind, type) and issubclass(kind, Message)
            and not issubclass(kind, Request) and kind.__module__ == module.__name__
            and "type" in kind.model_fields
        }  # fmt: skip
        assert members == defined, module.__name__
        union |= members
    assert union == set(get_args(get_args(ServerMessage)[0]))


def test_the_server_routes_by_the_areas() -> None:
    from server.shell.cluster.forwarding import LOBBY_WIDE

    coordinated = AREAS["head_to_head"] + AREAS["tournaments"] + AREAS["daily"]
    assert set(get_args(LOBBY_WIDE)) == set(coordinated)
    in_room = set(get_args(rooms.InRoomRequest))
    assert in_room < set(AREAS["rooms"]) and all("room_id" in k.model_fields for k in in_room)


def test_a_messages_quota_is_declared_on_it() -> None:
    quotas = {kind.__name__: kind.quota for area in AREAS.values() for kind in area if kind.quota}
    assert quotas == {
        "CreateRoom": "room",
        "JoinRoom": "join",
        "LeaveRoom": "join",
        "CreateTournament": "tournament",
        "JoinTournament": "join",
        "LeaveTournament": "join",
    }


def test_no_tuple_of_message_classes_is_kept_by_hand_in_the_server() -> None:
    """A module-level tuple, list or set naming two or more client message classes is
    a routing list kept by hand: routing reads the areas' unions instead. (A rule
    table keyed by message, such as a room's phases, is a rule, not a route.)"""
    names = {kind.__name__ for area in AREAS.values() for kind in area}
    kept: list[str] = []
    for path in sorted((ROOT / "server").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
                continue
            value = node.value
            items = value.elts if isinstance(value, (ast.Tuple, ast.List, ast.Set)) else []
            named = [i.id for i in items if isinstance(i, ast.Name) and i.id in names]
            if len(named) >= 2:
                kept.append(f"{path.relative_to(ROOT)}:{node.lineno} {named}")
    assert kept == [], kept


def test_the_room_a_message_names_is_read_from_the_areas() -> None:
    """addressed_room (the cluster's route, an error's ``room_id``) covers every client
    message with a ``room_id``, with no getattr by name."""
    from protocol.wire import addressed_room

    for area in AREAS.values():
        for kind in area:
            names = "room_id" in kind.model_fields
            message = kind.model_construct(**({"room_id": "x"} if names else {}))
            expected = "x" if names else None
            assert addressed_room(message) == expected, kind.__name__
